/** Network facts shared by every listener, free of any transport library. */
package io.sluice.core.net;
