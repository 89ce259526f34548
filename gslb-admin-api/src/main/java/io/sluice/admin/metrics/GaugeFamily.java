package io.sluice.admin.metrics;

import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The gauges of one metric name whose label sets follow the configuration: each refresh sets the
 * series that exist now; those not set since the previous refresh (a removed pool, service or
 * endpoint) are removed from the scrape. The series live in a {@link SeriesFamily}, not in the
 * Micrometer registry, found through nested maps by label value so that setting one allocates
 * nothing. Used by one thread at a time.
 */
final class GaugeFamily {
  /** The map key of the one series of a family without labels. */
  private static final String NO_LABELS = "";

  private final SeriesFamily family;
  private final int arity;

  /** Label value to map, level by level; the last level maps to a {@link Series}. */
  private final Map<String, Object> root = new HashMap<>();

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
  @SuppressWarnings("unchecked")
  void set(double v, String... values) {
    if (values.length != arity) {
      throw new IllegalArgumentException("takes " + arity + " labels");
    }
    Map<String, Object> node = root;
    for (int i = 0; i < arity - 1; i++) {
      node = (Map<String, Object>) node.computeIfAbsent(values[i], k -> new HashMap<>());
    }
    String last = arity == 0 ? NO_LABELS : values[arity - 1];
    Series s = (Series) node.get(last);
    if (s == null) {
      s = new Series(family.gauge(values));
      node.put(last, s);
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
    sweep(root, Math.max(arity, 1));
  }

  /** Sweeps the maps {@code levels} deep under {@code node}; true when it is left empty. */
  @SuppressWarnings("unchecked")
  private boolean sweep(Map<String, Object> node, int levels) {
    for (Iterator<Object> it = node.values().iterator(); it.hasNext(); ) {
      Object child = it.next();
      if (levels > 1) {
        if (sweep((Map<String, Object>) child, levels - 1)) {
          it.remove();
        }
      } else {
        Series s = (Series) child;
        if (!s.seen) {
          family.remove(s.gauge);
          it.remove();
        } else {
          s.seen = false;
        }
      }
    }
    return node.isEmpty();
  }
}
