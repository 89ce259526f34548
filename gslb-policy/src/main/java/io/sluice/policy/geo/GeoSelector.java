package io.sluice.policy.geo;

import io.sluice.policy.ChainContext;
import io.sluice.policy.Selector;

/**
 * Chain step {@code geo}: keeps the candidate pools of the client's region; when it has none, the
 * pools of the next region in its proximity order (or by great-circle distance). Clients without a
 * region keep every candidate.
 */
public final class GeoSelector implements Selector {
  /** The one instance: the step has no settings. */
  public static final GeoSelector INSTANCE = new GeoSelector();

  private GeoSelector() {}

  @Override
  public long select(long candidates, ChainContext ctx) {
    if (ctx.region() >= ctx.regions().size()) {
      ctx.note("client has no region: every candidate kept");
      return candidates;
    }
    long out = ctx.nearest(candidates);
    if (ctx.tracing()) {
      long own = ctx.inRegion(candidates, ctx.region());
      ctx.note(
          own != 0
              ? "pools of the client's region " + ctx.regions().name(ctx.region())
              : "no usable pool in " + ctx.regions().name(ctx.region()) + ": nearest region");
    }
    return out;
  }
}
