package io.sluice.policy.hash;

import io.sluice.policy.Balancer;
import io.sluice.policy.ChainContext;
import io.sluice.policy.EndpointTable;
import io.sluice.policy.Spread;
import java.util.Arrays;

/**
 * Chain step {@code hash(tolerance)}: consistent-hash equal-cost spreading by rendezvous (highest
 * random weight) hashing of the client subnet. Each pool has a seed derived from its name, so every
 * node and every resolver carrying the same ECS subnet lands on the same pool; when one of N pools
 * drops out only its own clients move, and they return when it comes back.
 *
 * <p>Equal cost assumes equal capacity. When the configured capacities differ by more than {@code
 * tolerance} percent the step degrades to weighted rendezvous hashing with the capacities as
 * weights (still consistent), and says so in explain.
 */
public final class RendezvousBalancer implements Balancer {
  /** Default capacity tolerance in percent. */
  public static final int DEFAULT_TOLERANCE = 10;

  private final long[] seeds;
  private final double[] weights;
  private final String reason;

  private RendezvousBalancer(long[] seeds, double[] weights, String reason) {
    this.seeds = seeds;
    this.weights = weights;
    this.reason = reason;
  }

  /**
   * A balancer over pools {@code names} with capacities {@code capacities} (0: unknown) and the
   * given tolerance in percent.
   */
  public static RendezvousBalancer of(
      java.util.List<String> names, long[] capacities, int tolerancePercent) {
    long[] seeds = new long[names.size()];
    for (int p = 0; p < seeds.length; p++) {
      seeds[p] = seed(names.get(p));
    }
    String why = mismatch(capacities, tolerancePercent);
    double[] weights = null;
    if (why != null) {
      weights = new double[capacities.length];
      for (int p = 0; p < capacities.length; p++) {
        weights[p] = capacities[p];
      }
    }
    return new RendezvousBalancer(seeds, weights, why);
  }

  /**
   * Why the capacities are not equal within {@code tolerancePercent}, or null when they are (or
   * when some are unknown, which counts as equal).
   */
  public static String mismatch(long[] capacities, int tolerancePercent) {
    long min = Long.MAX_VALUE;
    long max = 0;
    for (long c : capacities) {
      if (c <= 0) {
        return null;
      }
      min = Math.min(min, c);
      max = Math.max(max, c);
    }
    if (capacities.length == 0 || (max - min) * 100 <= min * (long) tolerancePercent) {
      return null;
    }
    return "capacities differ by more than "
        + tolerancePercent
        + "% ("
        + min
        + " to "
        + max
        + "): weighted by capacity";
  }

  /** Why this balancer degraded to weighted-by-capacity, or null. */
  public String degradedReason() {
    return reason;
  }

  @Override
  public Spread spread(
      long candidates, int[] poolWeights, EndpointTable endpoints, int limit, ChainContext ctx) {
    int n = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      if (endpoints.count(Long.numberOfTrailingZeros(m)) > 0) {
        n++;
      }
    }
    int[] pools = new int[n];
    int[][] members = new int[n][];
    int k = 0;
    for (long m = candidates; m != 0; m &= m - 1) {
      int p = Long.numberOfTrailingZeros(m);
      if (endpoints.count(p) > 0) {
        pools[k] = p;
        int[] all = endpoints.all(1L << p);
        members[k++] = all.length > limit ? Arrays.copyOf(all, limit) : all;
      }
    }
    String why =
        (reason != null ? reason : "equal cost")
            + ", rendezvous hash of the client subnet over "
            + n
            + " pools";
    return new HashSpread(pools, members, why);
  }

  /** The stable seed of a pool: a 64-bit hash of its name. */
  static long seed(String name) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < name.length(); i++) {
      h = (h ^ name.charAt(i)) * 0x100000001b3L;
    }
    return mix(h);
  }

  /** A 64-bit finaliser (SplitMix64). */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private final class HashSpread implements Spread {
    private final int[] pools;
    private final int[][] members;
    private final String why;

    HashSpread(int[] pools, int[][] members, String why) {
      this.pools = pools;
      this.members = members;
      this.why = why;
    }

    @Override
    public int variants() {
      return Math.max(1, pools.length);
    }

    @Override
    public double share(int v) {
      if (weights == null || pools.length == 0) {
        return 1.0 / variants();
      }
      // Weighted rendezvous hashing gives each pool its weight's fraction of the clients.
      double sum = 0;
      for (int p : pools) {
        sum += weights[p];
      }
      return sum == 0 ? 1.0 / pools.length : weights[pools[v]] / sum;
    }

    @Override
    public int pick(long clientHash) {
      int best = 0;
      double bestScore = Double.NEGATIVE_INFINITY;
      for (int i = 0; i < pools.length; i++) {
        long h = mix(clientHash ^ seeds[pools[i]]);
        double score;
        if (weights == null) {
          score = h >>> 11;
        } else {
          // Weighted rendezvous: -w / ln(u) keeps consistency and gives each pool its weight.
          double u = ((h >>> 11) + 0.5) * 0x1.0p-53;
          score = -weights[pools[i]] / Math.log(u);
        }
        if (score > bestScore) {
          bestScore = score;
          best = i;
        }
      }
      return best;
    }

    @Override
    public int[] members(int v) {
      return pools.length == 0 ? new int[0] : members[v];
    }

    @Override
    public String describe() {
      return why;
    }
  }
}
