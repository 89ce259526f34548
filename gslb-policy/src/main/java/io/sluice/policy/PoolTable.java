package io.sluice.policy;

import java.util.List;

/**
 * The pools of one service, resolved to indexes at compile time: index {@code p} is the pool's
 * position in the service's {@code pools} list and bit {@code p} of a candidate mask.
 *
 * @param names pool names
 * @param regions region index of each pool ({@code -1} when the pool has no region)
 * @param capacities configured capacity of each pool ({@code 0} when not configured)
 * @param weights configured weight of each pool in this service
 */
public record PoolTable(List<String> names, int[] regions, long[] capacities, int[] weights) {

  /** Number of pools. */
  public int size() {
    return names.size();
  }

  /** Every pool as a mask. */
  public long all() {
    return size() == 64 ? -1L : (1L << size()) - 1;
  }

  /** The names of the pools in {@code mask}, in service order. */
  public List<String> names(long mask) {
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    for (long m = mask; m != 0; m &= m - 1) {
      out.add(names.get(Long.numberOfTrailingZeros(m)));
    }
    return List.copyOf(out);
  }
}
