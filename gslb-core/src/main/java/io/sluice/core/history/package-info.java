/** The bounded history of served states that explains answers after the fact. */
package io.sluice.core.history;
