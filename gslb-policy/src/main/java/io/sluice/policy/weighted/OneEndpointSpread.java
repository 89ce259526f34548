package io.sluice.policy.weighted;

import io.sluice.policy.EndpointTable;
import io.sluice.policy.Spread;
import java.util.Arrays;

/**
 * One endpoint per answer: endpoint {@code e} of pool {@code p} gets the share {@code poolShare[p]
 * * weight[e] / sum(weights of p)}, and a client's stable hash picks a point on the cumulative
 * shares, so the same client keeps the same endpoint while shares hold.
 */
final class OneEndpointSpread implements Spread {
  private final int[] members;
  private final double[] upper;
  private final String why;

  private OneEndpointSpread(int[] members, double[] upper, String why) {
    this.members = members;
    this.upper = upper;
    this.why = why;
  }

  static Spread of(double[] poolShare, EndpointTable endpoints, String why) {
    int n = 0;
    for (int p = 0; p < poolShare.length; p++) {
      if (poolShare[p] > 0) {
        n += endpoints.count(p);
      }
    }
    int[] members = new int[n];
    double[] upper = new double[n];
    int k = 0;
    double acc = 0;
    for (int p = 0; p < poolShare.length; p++) {
      if (poolShare[p] == 0) {
        continue;
      }
      int[] w = endpoints.weights(p);
      long sum = 0;
      for (int x : w) {
        sum += x;
      }
      for (int i = 0; i < w.length; i++) {
        acc += poolShare[p] * (sum == 0 ? 1.0 / w.length : (double) w[i] / sum);
        members[k] = Spread.member(p, i);
        upper[k++] = acc;
      }
    }
    upper[n - 1] = Double.POSITIVE_INFINITY; // rounding must never push a client past the end
    return new OneEndpointSpread(members, upper, why);
  }

  @Override
  public int variants() {
    return members.length;
  }

  @Override
  public double share(int v) {
    double from = v == 0 ? 0 : upper[v - 1];
    return (v == upper.length - 1 ? 1.0 : upper[v]) - from;
  }

  @Override
  public int pick(long clientHash) {
    double u = Spread.unit(clientHash);
    int i = Arrays.binarySearch(upper, u);
    // Not found: -(insertion point) - 1; found exactly: the next slot starts there.
    return i < 0 ? -i - 1 : i + 1;
  }

  @Override
  public int[] members(int v) {
    return new int[] {members[v]};
  }

  @Override
  public String describe() {
    return why + ", one endpoint per answer chosen by client hash";
  }
}
