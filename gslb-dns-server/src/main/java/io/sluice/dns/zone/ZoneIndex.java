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

  /** The zones by origin, found by a question's bytes with no dnsjava {@link Name}. */
  private final WireNames<Zone> byOriginWire;

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
    this.byOriginWire = WireNames.of(m);
  }

  /** An index of {@code zones} (the same zones with other serials, for zone transfers). */
  public static ZoneIndex of(List<Zone> zones) {
    return new ZoneIndex(zones);
  }

  /** The zones, in configuration order. */
  public List<Zone> zones() {
    return zones;
  }

  /**
   * The most specific zone containing the wire-form name (uncompressed, any letter case, {@code
   * len} bytes with the root label) at {@code off} in {@code b}, or null when no served zone does.
   */
  public Zone find(byte[] b, int off, int len) {
    if (zones.size() > SCAN_LIMIT) {
      return findByOrigin(b, off, len);
    }
    Zone best = null;
    for (Zone z : zones) {
      if (z.contains(b, off, len)
          && (best == null || z.origin().labels() > best.origin().labels())) {
        best = z;
      }
    }
    return best;
  }

  /**
   * {@link #find(byte[], int, int)} by hash: the name's suffixes of at most {@link
   * #maxOriginLabels} labels, longest first, each looked up as an origin.
   */
  private Zone findByOrigin(byte[] b, int off, int len) {
    int end = off + len;
    int labels = 0;
    for (int p = off; p < end; p += (b[p] & 0xff) + 1) {
      labels++;
      if (b[p] == 0) {
        break;
      }
    }
    int p = off;
    // Labels counted with the root's, as dnsjava's Name.labels() counts them.
    for (int skip = labels - maxOriginLabels; skip > 0; skip--) {
      p += (b[p] & 0xff) + 1;
    }
    while (p < end) {
      int suffix = end - p;
      Zone z = byOriginWire.get(b, p, suffix, WireNames.hash(b, p, suffix));
      if (z != null) {
        return z;
      }
      if (b[p] == 0) {
        return null;
      }
      p += (b[p] & 0xff) + 1;
    }
    return null;
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
