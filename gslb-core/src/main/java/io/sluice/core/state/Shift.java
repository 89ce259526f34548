package io.sluice.core.state;

import java.util.List;

/**
 * A share of a service's clients moved away from some pools to others. Clients whose stable bucket
 * (see {@link io.sluice.core.spi.ClientInfo#bucket()}) is below {@code percent × 100} are moved:
 * for them the {@code from} pools are not used while a {@code to} pool is usable. Buckets only grow
 * as a ramp advances, so no client flips back and forth. A non-null {@code region} limits the shift
 * to clients mapped to that region; null moves clients of every region.
 */
public record Shift(String id, List<String> from, List<String> to, double percent, String region) {

  public Shift {
    from = List.copyOf(from);
    to = List.copyOf(to);
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("percent must be 0..100, was " + percent);
    }
    if (region != null && region.isBlank()) {
      throw new IllegalArgumentException("region must be a region name or null, was blank");
    }
  }

  /** A shift of clients in every region. */
  public Shift(String id, List<String> from, List<String> to, double percent) {
    this(id, from, to, percent, null);
  }

  /** True when a client in {@code bucket} (0..9999) is moved by this shift. */
  public boolean moves(int bucket) {
    return bucket < Math.round(percent * 100);
  }

  /** True when clients mapped to {@code clientRegion} (null: no region) fall in this shift. */
  public boolean covers(String clientRegion) {
    return region == null || region.equals(clientRegion);
  }

  /** The same shift at another percentage. */
  public Shift at(double newPercent) {
    return new Shift(id, from, to, newPercent, region);
  }
}
