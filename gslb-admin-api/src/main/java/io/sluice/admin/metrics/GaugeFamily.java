package io.sluice.admin.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The gauges of one metric name whose label sets follow the configuration: each refresh sets the
 * series that exist now; those not set since the previous refresh (a removed pool, service or
 * endpoint) are removed from the registry. Used by one thread at a time.
 */
final class GaugeFamily {
  private final MeterRegistry registry;
  private final String name;
  private final String description;
  private final String[] keys;
  private final Map<List<String>, Series> series = new HashMap<>();

  /** One series: its value, read at scrape, and whether the current refresh set it. */
  private static final class Series {
    volatile double value;
    boolean seen;
    Gauge gauge;
  }

  GaugeFamily(MeterRegistry registry, String name, String description, String... keys) {
    this.registry = registry;
    this.name = name;
    this.description = description;
    this.keys = keys;
  }

  /** Sets the series with label values {@code values} (in the order of the keys) to {@code v}. */
  void set(double v, String... values) {
    if (values.length != keys.length) {
      throw new IllegalArgumentException(name + " takes " + keys.length + " labels");
    }
    List<String> id = List.of(values);
    Series s = series.get(id);
    if (s == null) {
      s = new Series();
      String[] kv = new String[keys.length * 2];
      for (int i = 0; i < keys.length; i++) {
        kv[2 * i] = keys[i];
        kv[2 * i + 1] = values[i];
      }
      s.gauge =
          Gauge.builder(name, s, x -> x.value)
              .description(description)
              .tags(Tags.of(kv))
              .strongReference(true)
              .register(registry);
      series.put(id, s);
    }
    s.value = v;
    s.seen = true;
  }

  /** Sets a 0/1 series. */
  void set(boolean on, String... values) {
    set(on ? 1 : 0, values);
  }

  /** Removes every series the refresh did not set, and starts the next refresh. */
  void sweep() {
    for (Iterator<Series> it = series.values().iterator(); it.hasNext(); ) {
      Series s = it.next();
      if (!s.seen) {
        registry.remove(s.gauge);
        it.remove();
      } else {
        s.seen = false;
      }
    }
  }
}
