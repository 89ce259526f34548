package io.sluice.admin.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The process's Prometheus registry with JVM metrics bound, and the {@link MicrometerGslbMetrics}
 * every module records into. One per process; close it on shutdown.
 */
public final class PrometheusMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final MicrometerGslbMetrics gslb;
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();

  public PrometheusMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    gslb = new MicrometerGslbMetrics(registry);
  }

  /** The sink to pass to the DNS server, policy, probes and the traffic controller. */
  public MicrometerGslbMetrics gslb() {
    return gslb;
  }

  /** The registry, for modules that register their own meters. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Runs {@code refresh} before every scrape (gauges computed from the current state). */
  public void beforeScrape(Runnable refresh) {
    beforeScrape.add(refresh);
  }

  /** Every metric in the Prometheus text exposition format (version 0.0.4). */
  public String scrape() {
    beforeScrape.forEach(Runnable::run);
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
