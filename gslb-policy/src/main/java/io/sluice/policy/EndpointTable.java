package io.sluice.policy;

/**
 * The endpoints a balancing step may hand out for one address family, per pool: their weights (the
 * engine keeps the addresses). Index {@code i} of pool {@code p} is stable within one snapshot.
 */
public final class EndpointTable {
  private final int[][] weights;

  /** {@code weights[p][i]} is the weight of endpoint {@code i} of pool {@code p}. */
  public EndpointTable(int[][] weights) {
    this.weights = weights;
  }

  /** Weights of the endpoints of pool {@code p} (do not modify). */
  public int[] weights(int p) {
    return weights[p];
  }

  /** Number of endpoints of pool {@code p}. */
  public int count(int p) {
    return weights[p].length;
  }

  /** Every endpoint of the pools in {@code mask}, in pool order. */
  public int[] all(long mask) {
    int n = 0;
    for (long m = mask; m != 0; m &= m - 1) {
      n += count(Long.numberOfTrailingZeros(m));
    }
    int[] out = new int[n];
    int k = 0;
    for (long m = mask; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      for (int i = 0; i < count(p); i++) {
        out[k++] = Spread.member(p, i);
      }
    }
    return out;
  }
}
