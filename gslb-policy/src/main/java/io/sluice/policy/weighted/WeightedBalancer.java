package io.sluice.policy.weighted;

import io.sluice.policy.Balancer;
import io.sluice.policy.ChainContext;
import io.sluice.policy.EndpointTable;
import io.sluice.policy.Spread;

/**
 * Chain step {@code weighted(style)}: shares by pool weight. Style {@code one} answers one endpoint
 * per query, chosen by the client's stable hash, so a client keeps its answer while the weights
 * hold. Style {@code mix} answers up to the record limit with a mix of pools that follows the
 * weights, for shared resolver caches that spread their clients over the records. When every
 * candidate's weight is zero, the candidates share equally (weight 0 marks a standby pool).
 */
public final class WeightedBalancer implements Balancer {
  /** How many answer variants the {@code mix} style builds: shares are exact to 1/VARIANTS. */
  public static final int MIX_VARIANTS = 100;

  /** The answer style. */
  public enum Style {
    /** One endpoint per answer, stable per client. */
    ONE,
    /** Several records whose mix follows the weights. */
    MIX
  }

  private final Style style;

  public WeightedBalancer(Style style) {
    this.style = style;
  }

  /** The configured style. */
  public Style style() {
    return style;
  }

  @Override
  public Spread spread(
      long candidates, int[] poolWeights, EndpointTable endpoints, int limit, ChainContext ctx) {
    long total = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      if (endpoints.count(p) > 0) {
        total += poolWeights[p];
      }
    }
    boolean equal = total == 0;
    double[] share = new double[poolWeights.length];
    double sum = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      if (endpoints.count(p) > 0) {
        share[p] = equal ? 1 : poolWeights[p];
        sum += share[p];
      }
    }
    if (sum == 0) {
      return Spread.fixed(new int[0], "no endpoint to hand out");
    }
    for (int p = 0; p < share.length; p++) {
      share[p] /= sum;
    }
    String why = equal ? "every weight is 0: equal shares" : "shares by weight";
    return style == Style.ONE
        ? OneEndpointSpread.of(share, endpoints, why)
        : MixSpread.of(share, endpoints, limit, why);
  }
}
