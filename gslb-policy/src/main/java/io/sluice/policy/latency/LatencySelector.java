package io.sluice.policy.latency;

import io.sluice.policy.ChainContext;
import io.sluice.policy.Selector;
import io.sluice.policy.geo.GeoSelector;

/**
 * Chain step {@code latency}: keeps the candidate pool(s) with the lowest measured probe RTT (the
 * median of the pool's best endpoint). When any candidate has no fresh measurement the step cannot
 * compare fairly and falls back to {@code geo}.
 */
public final class LatencySelector implements Selector {
  /** The one instance: the step has no settings. */
  public static final LatencySelector INSTANCE = new LatencySelector();

  private LatencySelector() {}

  @Override
  public long select(long candidates, ChainContext ctx) {
    double best = Double.POSITIVE_INFINITY;
    for (long m = candidates; m != 0; m &= m - 1) {
      double rtt = ctx.rttMillis(Long.numberOfTrailingZeros(m));
      if (Double.isNaN(rtt)) {
        ctx.note(
            "no fresh RTT for "
                + ctx.pools().names().get(Long.numberOfTrailingZeros(m))
                + ": falling back to geo");
        return GeoSelector.INSTANCE.select(candidates, ctx);
      }
      best = Math.min(best, rtt);
    }
    long out = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      if (ctx.rttMillis(p) == best) {
        out |= 1L << p;
      }
    }
    ctx.note("lowest RTT " + best + " ms");
    return out;
  }
}
