package io.sluice.policy.capacity;

import io.sluice.policy.ChainContext;
import io.sluice.policy.Selector;

/**
 * Chain step {@code capacity(watermark)}: a pool whose reported load is at or above {@code
 * watermark} percent of its capacity takes no new share; when every candidate is above it, the
 * overflow goes to the nearest pools with headroom among those the red-line steps allowed. Pools
 * without a capacity or without a reported load always have headroom.
 */
public final class CapacitySelector implements Selector {
  /** Default watermark, percent of capacity. */
  public static final int DEFAULT_WATERMARK = 80;

  private final int watermarkPercent;

  /** A selector with the given watermark in percent (1..100). */
  public CapacitySelector(int watermarkPercent) {
    this.watermarkPercent = watermarkPercent;
  }

  /** The pools of {@code candidates} that are at or above the watermark. */
  public long full(long candidates, ChainContext ctx) {
    long full = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      long capacity = ctx.pools().capacities()[p];
      double load = ctx.load(p);
      if (capacity > 0
          && !Double.isNaN(load)
          && load * 100 >= (double) capacity * watermarkPercent) {
        full |= 1L << p;
      }
    }
    return full;
  }

  @Override
  public long select(long candidates, ChainContext ctx) {
    if (ctx.tracing()) {
      describeLoads(candidates, ctx);
    }
    long full = full(candidates, ctx);
    long out = candidates & ~full;
    if (full != 0) {
      ctx.note("above " + watermarkPercent + "% of capacity: " + ctx.pools().names(full));
    }
    if (out != 0) {
      return out;
    }
    long spare = ctx.redLine() & ~full(ctx.redLine(), ctx);
    if (spare == 0) {
      ctx.note("every pool is above its watermark: candidates kept");
      return candidates;
    }
    long nearest = ctx.nearest(spare);
    ctx.note("overflow to the nearest pools with headroom: " + ctx.pools().names(nearest));
    return nearest;
  }

  private void describeLoads(long candidates, ChainContext ctx) {
    StringBuilder sb = new StringBuilder();
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      long capacity = ctx.pools().capacities()[p];
      if (capacity == 0) {
        continue;
      }
      sb.append(sb.length() == 0 ? "load: " : ", ").append(ctx.pools().names().get(p)).append(' ');
      if ((ctx.staleLoads() & 1L << p) != 0) {
        sb.append("stale (older than its staleAfter), ignored");
      } else if (Double.isNaN(ctx.load(p))) {
        sb.append("not reported");
      } else {
        sb.append(
            String.format(
                java.util.Locale.ROOT,
                "%.0f of %d (%.0f%%)",
                ctx.load(p),
                capacity,
                ctx.load(p) * 100 / capacity));
      }
    }
    if (sb.length() > 0) {
      ctx.note(sb.toString());
    }
  }

  /** The watermark in percent. */
  public int watermarkPercent() {
    return watermarkPercent;
  }
}
