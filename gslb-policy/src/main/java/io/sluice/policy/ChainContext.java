package io.sluice.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link Selector} may read while it narrows the pools for one client: the service's pools,
 * the region graph, the client's region, the pools left by the red-line steps, and the per-snapshot
 * pool data (latency, load). When {@link #tracing()} is on, selectors explain themselves with
 * {@link #note}; the query path never traces.
 */
public final class ChainContext {
  private final PoolTable pools;
  private final RegionGraph regions;
  private final int region;
  private final double[] rttMillis;
  private final double[] load;
  private final List<String> notes;
  private long redLine;
  private long staleLoads;
  // Whether a step read a latency: a derived state that never did stays valid when only latencies
  // change (ServiceState#sameInputs).
  private boolean rttRead;

  /**
   * A context for clients of {@code region}. {@code rttMillis[p]} is NaN when pool {@code p} has no
   * fresh latency; {@code load[p]} is NaN when none was reported.
   */
  public ChainContext(
      PoolTable pools,
      RegionGraph regions,
      int region,
      double[] rttMillis,
      double[] load,
      boolean tracing) {
    this.pools = pools;
    this.regions = regions;
    this.region = region;
    this.rttMillis = rttMillis;
    this.load = load;
    this.notes = tracing ? new ArrayList<>() : null;
  }

  public PoolTable pools() {
    return pools;
  }

  public RegionGraph regions() {
    return regions;
  }

  /** The client's region index; {@code regions().size()} means no region. */
  public int region() {
    return region;
  }

  /** Measured probe RTT of pool {@code p} in milliseconds; NaN when missing or stale. */
  public double rttMillis(int p) {
    rttRead = true;
    return rttMillis[p];
  }

  /** Whether {@link #rttMillis} was called on this context. */
  boolean rttRead() {
    return rttRead;
  }

  /** Reported load of pool {@code p} in capacity units; NaN when unknown. */
  public double load(int p) {
    return load[p];
  }

  /** The pools the red-line steps allowed: what preference steps may fall back on. */
  public long redLine() {
    return redLine;
  }

  void redLine(long mask) {
    redLine = mask;
  }

  /**
   * The pools whose last reported load is older than their {@code load.staleAfter}: {@link #load}
   * is NaN for them, as if nothing had been reported (explain says so).
   */
  public long staleLoads() {
    return staleLoads;
  }

  void staleLoads(long mask) {
    staleLoads = mask;
  }

  /** The pools of {@code candidates} in region index {@code r} ({@code -1}: pools without one). */
  public long inRegion(long candidates, int r) {
    long out = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      if (pools.regions()[p] == r) {
        out |= 1L << p;
      }
    }
    return out;
  }

  /**
   * The pools of {@code candidates} in the nearest region that has any, in the client region's
   * proximity order (pools without a region come last); 0 when {@code candidates} is empty.
   */
  public long nearest(long candidates) {
    for (int r : regions.order(region)) {
      long in = inRegion(candidates, r);
      if (in != 0) {
        return in;
      }
    }
    long unplaced = inRegion(candidates, -1);
    return unplaced != 0 ? unplaced : candidates;
  }

  /** True when selectors should explain themselves. */
  public boolean tracing() {
    return notes != null;
  }

  /** Records why a step decided as it did (only when tracing). */
  public void note(String why) {
    if (notes != null) {
      notes.add(why);
    }
  }

  /** Notes recorded since the last call, joined; empty when none. */
  String drainNotes() {
    if (notes == null || notes.isEmpty()) {
      return "";
    }
    String s = String.join("; ", notes);
    notes.clear();
    return s;
  }
}
