/** Lock-free sampling and hand-off from the query path to background threads. */
package io.sluice.core.sample;
