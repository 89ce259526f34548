package io.sluice.policy.limit;

import io.sluice.policy.EndpointTable;
import io.sluice.policy.Spread;
import java.util.Arrays;

/**
 * The handout limit without a balancing step: every endpoint of the chosen pools when they fit in
 * {@code limit} records; otherwise {@code n} variants, each a window of {@code limit} endpoints
 * starting at a different one, so that over many clients every endpoint is handed out equally.
 */
public final class LimitSpread implements Spread {
  private final int[] all;
  private final int limit;

  private LimitSpread(int[] all, int limit) {
    this.all = all;
    this.limit = limit;
  }

  /** The spread of every endpoint of {@code pools}, at most {@code limit} per answer. */
  public static Spread of(long pools, EndpointTable endpoints, int limit) {
    int[] all = endpoints.all(pools);
    if (all.length <= limit) {
      return Spread.fixed(all, "all " + all.length + " endpoints fit in the limit of " + limit);
    }
    return new LimitSpread(all, limit);
  }

  @Override
  public int variants() {
    return all.length;
  }

  @Override
  public int pick(long clientHash) {
    return (int) Long.remainderUnsigned(clientHash, all.length);
  }

  @Override
  public int[] members(int v) {
    int[] out = new int[limit];
    for (int i = 0; i < limit; i++) {
      out[i] = all[(v + i) % all.length];
    }
    return out;
  }

  @Override
  public String describe() {
    return all.length + " endpoints, " + limit + " per answer, window chosen by client hash";
  }

  @Override
  public String toString() {
    return "LimitSpread" + Arrays.toString(all) + "/" + limit;
  }
}
