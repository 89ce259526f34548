package io.sluice.admin.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The process's Prometheus registry with JVM metrics bound, and the {@link MicrometerGslbMetrics}
 * every module records into. One per process; close it on shutdown.
 */
public final class PrometheusMetrics implements AutoCloseable {
  private static final String TEXT_FORMAT = "text/plain; version=0.0.4; charset=utf-8";
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final MicrometerGslbMetrics gslb;
  private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();
  private final List<SeriesFamily> families = new CopyOnWriteArrayList<>();
  private volatile int lastSize = 1 << 16;

  public PrometheusMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    gslb = new MicrometerGslbMetrics(registry, families);
  }

  /** The sink to pass to the DNS server, policy, probes and the traffic controller. */
  public MicrometerGslbMetrics gslb() {
    return gslb;
  }

  /** The registry, for modules that register their own meters. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The families Sluice renders itself, written after the registry's meters. */
  List<SeriesFamily> families() {
    return families;
  }

  /** Runs {@code refresh} before every scrape (gauges computed from the current state). */
  public void beforeScrape(Runnable refresh) {
    beforeScrape.add(refresh);
  }

  /** Every metric in the Prometheus text exposition format (version 0.0.4). */
  public String scrape() {
    return new String(scrapeBytes(), StandardCharsets.UTF_8);
  }

  /**
   * The scrape as UTF-8 bytes, written into one buffer: the registry's meters, then the families
   * Sluice renders itself line by line from their cached label bytes.
   */
  public byte[] scrapeBytes() {
    beforeScrape.forEach(Runnable::run);
    ScrapeBuffer out = new ScrapeBuffer(lastSize);
    try {
      registry.scrape(out, TEXT_FORMAT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (SeriesFamily f : families) {
      f.writeTo(out);
    }
    byte[] bytes = out.toByteArray();
    // The next scrape starts with room for this one's size: no copies while it grows.
    lastSize = bytes.length + bytes.length / 8;
    return bytes;
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
