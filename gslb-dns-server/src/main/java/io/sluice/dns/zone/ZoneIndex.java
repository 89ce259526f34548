package io.sluice.dns.zone;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;

/**
 * Every served zone, immutable and built once per configuration; a reload builds a new index and
 * swaps it in whole. Finding the zone of a name is one hash probe per label, or a short scan when
 * few zones are served.
 */
public final class ZoneIndex {
  private static final int SCAN_LIMIT = 8;

  private final List<Zone> zones;
  private final Map<Name, Zone> byOrigin;
  private final int maxOriginLabels;

  ZoneIndex(List<Zone> zones) {
    this.zones = List.copyOf(zones);
    Map<Name, Zone> m = new HashMap<>();
    int max = 0;
    for (Zone z : zones) {
      m.put(z.origin(), z);
      max = Math.max(max, z.origin().labels());
    }
    this.byOrigin = Map.copyOf(m);
    this.maxOriginLabels = max;
  }

  /** An index of {@code zones} (the same zones with other serials, for zone transfers). */
  public static ZoneIndex of(List<Zone> zones) {
    return new ZoneIndex(zones);
  }

  /** The zones, in configuration order. */
  public List<Zone> zones() {
    return zones;
  }

  /** The most specific zone containing {@code name}, or null when no served zone does. */
  public Zone find(Name name) {
    if (zones.size() <= SCAN_LIMIT) {
      Zone best = null;
      for (Zone z : zones) {
        if (name.subdomain(z.origin())
            && (best == null || z.origin().labels() > best.origin().labels())) {
          best = z;
        }
      }
      return best;
    }
    int labels = name.labels();
    for (int strip = Math.max(0, labels - maxOriginLabels); strip < labels; strip++) {
      Zone z = byOrigin.get(strip == 0 ? name : new Name(name, strip));
      if (z != null) {
        return z;
      }
    }
    return null;
  }
}
