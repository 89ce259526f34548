package io.sluice.policy.priority;

import io.sluice.policy.ChainContext;
import io.sluice.policy.Selector;

/**
 * Chain step {@code priority}: failover in the order the service lists its pools; the first
 * candidate takes all traffic.
 */
public final class PrioritySelector implements Selector {
  /** The one instance: the step has no settings. */
  public static final PrioritySelector INSTANCE = new PrioritySelector();

  private PrioritySelector() {}

  @Override
  public long select(long candidates, ChainContext ctx) {
    long first = Long.lowestOneBit(candidates);
    if (ctx.tracing() && first != 0) {
      ctx.note(
          "first usable pool in service order: "
              + ctx.pools().names().get(Long.numberOfTrailingZeros(first)));
    }
    return first;
  }
}
