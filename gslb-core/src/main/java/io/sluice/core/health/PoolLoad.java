package io.sluice.core.health;

/**
 * The last load reported for a pool, in the unit of its configured capacity: its value, when and
 * how it was reported, and whether it is older than the pool's {@code load.staleAfter} (a stale
 * load is ignored by the {@code capacity} step, as if nothing had been reported).
 */
public record PoolLoad(double value, long reportedMillis, Source source, boolean stale) {

  /** How a load reached the node. */
  public enum Source {
    /** Pushed through the admin API ({@code PUT /api/v1/pools/{pool}/load}). */
    PUSH,
    /** Pulled from the pool's Prometheus query ({@code pools.<name>.load.query}). */
    PROMETHEUS
  }
}
