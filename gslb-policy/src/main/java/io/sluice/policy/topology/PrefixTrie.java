package io.sluice.policy.topology;

/**
 * An immutable binary prefix trie over one address family, in parallel int arrays. It is canonical:
 * every internal node has two children, only leaves carry a value, and sibling leaves with equal
 * values are merged, so the depth at which a lookup stops is the widest prefix over which the value
 * is the same. Lookups walk the arrays and never allocate.
 *
 * <p>{@code masks[n]} is the set of region indexes found under node {@code n} (bit {@code r}),
 * present when there are at most 64 regions; it lets {@link #scope} find the widest prefix whose
 * regions all lead to the same answer.
 */
public final class PrefixTrie {
  /** Child index in {@code left}/{@code right} meaning "this node is a leaf". */
  static final int LEAF = -1;

  private final int[] left;
  private final int[] right;
  private final int[] values;
  private final long[] masks;
  private final int bits;

  PrefixTrie(int[] left, int[] right, int[] values, long[] masks, int bits) {
    this.left = left;
    this.right = right;
    this.values = values;
    this.masks = masks;
    this.bits = bits;
  }

  /**
   * The leaf for {@code address}: the value in the low 32 bits and the leaf's depth (the prefix
   * length over which the value holds) in the high 32 bits.
   */
  public long find(byte[] address) {
    int node = 0;
    int depth = 0;
    while (left[node] != LEAF) {
      int bit = (address[depth >>> 3] >>> (7 - (depth & 7))) & 1;
      node = bit == 0 ? left[node] : right[node];
      depth++;
    }
    return ((long) depth << 32) | (values[node] & 0xffffffffL);
  }

  /**
   * The shortest prefix of {@code address} under which every region belongs to {@code regionClass}
   * (a bit set of region indexes); without masks, the leaf depth.
   */
  public int scope(byte[] address, long regionClass) {
    if (masks == null) {
      return (int) (find(address) >>> 32);
    }
    int node = 0;
    int depth = 0;
    while ((masks[node] & ~regionClass) != 0 && left[node] != LEAF) {
      int bit = (address[depth >>> 3] >>> (7 - (depth & 7))) & 1;
      node = bit == 0 ? left[node] : right[node];
      depth++;
    }
    return depth;
  }

  /** Address length in bits: 32 or 128. */
  public int bits() {
    return bits;
  }

  /** Number of nodes, leaves included. */
  public int size() {
    return values.length;
  }
}
