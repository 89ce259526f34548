package io.sluice.admin.metrics;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The gauges of one metric name whose label sets follow the configuration: each refresh sets the
 * series that exist now; those not set since the previous refresh (a removed pool, service or
 * endpoint) are removed from the scrape. The series live in a {@link SeriesFamily}, not in the
 * Micrometer registry. Used by one thread at a time.
 */
final class GaugeFamily {
  private final SeriesFamily family;
  private final int arity;
  private final Map<List<String>, Series> series = new HashMap<>();

  /** One series and whether the current refresh set it. */
  private static final class Series {
    final SeriesFamily.Gauge gauge;
    boolean seen;

    Series(SeriesFamily.Gauge gauge) {
      this.gauge = gauge;
    }
  }

  GaugeFamily(List<SeriesFamily> scraped, String name, String description, String... keys) {
    family = new SeriesFamily(name, SeriesFamily.Type.GAUGE, description, keys);
    arity = keys.length;
    scraped.add(family);
  }

  /** Sets the series with label values {@code values} (in the order of the keys) to {@code v}. */
  void set(double v, String... values) {
    if (values.length != arity) {
      throw new IllegalArgumentException("takes " + arity + " labels");
    }
    List<String> id = List.of(values);
    Series s = series.get(id);
    if (s == null) {
      s = new Series(family.gauge(values));
      series.put(id, s);
    }
    s.gauge.set(v);
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
        family.remove(s.gauge);
        it.remove();
      } else {
        s.seen = false;
      }
    }
  }
}
