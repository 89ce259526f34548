package io.sluice.admin.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
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
   * Sluice renders itself line by line from their cached label text.
   */
  public byte[] scrapeBytes() {
    beforeScrape.forEach(Runnable::run);
    ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
    try {
      registry.scrape(out, TEXT_FORMAT);
      Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
      for (SeriesFamily f : families) {
        f.writeTo(w);
      }
      w.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
