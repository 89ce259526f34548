package io.sluice.policy.weighted;

import io.sluice.policy.EndpointTable;
import io.sluice.policy.Spread;

/**
 * Several records per answer whose mix follows the pool shares. With {@code n} records, pool {@code
 * p} should fill {@code n * share[p]} of them; variant {@code v} rounds those counts by systematic
 * sampling at offset {@code (v + 0.5) / VARIANTS}, so that averaged over the variants (that is,
 * over many clients) each pool fills exactly its share of the records, within 1/VARIANTS. Endpoints
 * inside a pool rotate with the variant.
 */
final class MixSpread implements Spread {
  private final int[][] variants;
  private final String why;

  private MixSpread(int[][] variants, String why) {
    this.variants = variants;
    this.why = why;
  }

  static Spread of(double[] share, EndpointTable endpoints, int limit, String why) {
    int available = 0;
    for (int p = 0; p < share.length; p++) {
      if (share[p] > 0) {
        available += endpoints.count(p);
      }
    }
    int n = Math.min(limit, available);
    int[][] variants = new int[WeightedBalancer.MIX_VARIANTS][];
    boolean capped = false;
    for (int v = 0; v < variants.length; v++) {
      double u = (v + 0.5) / variants.length;
      int[] out = new int[n];
      int k = 0;
      double cum = 0;
      for (int p = 0; p < share.length && k < n; p++) {
        if (share[p] == 0) {
          continue;
        }
        long lo = (long) Math.floor(cum * n + u);
        cum += share[p];
        long hi = (long) Math.floor(cum * n + u);
        int count = (int) Math.min(hi - lo, n - k);
        if (count > endpoints.count(p)) {
          capped = true;
          count = endpoints.count(p);
        }
        for (int j = 0; j < count; j++) {
          out[k++] = Spread.member(p, (v + j) % endpoints.count(p));
        }
      }
      variants[v] = k == n ? out : java.util.Arrays.copyOf(out, k);
    }
    return new MixSpread(
        variants,
        why
            + ", "
            + n
            + " records per answer"
            + (capped ? " (a pool has fewer endpoints than its share of records)" : ""));
  }

  @Override
  public int variants() {
    return variants.length;
  }

  @Override
  public int pick(long clientHash) {
    return (int) Long.remainderUnsigned(clientHash, variants.length);
  }

  @Override
  public int[] members(int v) {
    return variants[v];
  }

  @Override
  public String describe() {
    return why;
  }
}
