/**
 * Micrometer binding of {@link io.sluice.core.spi.GslbMetrics} and the Prometheus registry behind
 * {@code /metrics}. Every metric is listed in {@code docs/metrics.md}.
 */
package io.sluice.admin.metrics;
