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
 *
 * <p>A walk starts at the node its address's first {@link #JUMP_BITS} bits lead to, read from a
 * table of 256, instead of at the root: a client in a /16 costs 8 steps instead of 16, each a load
 * that depends on the one before.
 */
public final class PrefixTrie {
  /** Child index in {@code left}/{@code right} meaning "this node is a leaf". */
  static final int LEAF = -1;

  private final int[] left;
  private final int[] right;
  private final int[] values;
  private final long[] masks;
  private final int bits;

  /** Bits of the address the jump table covers. */
  static final int JUMP_BITS = 8;

  /**
   * By the address's first byte: the node the walk reaches after {@link #JUMP_BITS} bits (or the
   * leaf it ends at before them) in the low 32 bits, its depth in the high 32 bits.
   */
  private final long[] jump = new long[1 << JUMP_BITS];

  PrefixTrie(int[] left, int[] right, int[] values, long[] masks, int bits) {
    this.left = left;
    this.right = right;
    this.values = values;
    this.masks = masks;
    this.bits = bits;
    byte[] first = new byte[1];
    for (int b = 0; b < jump.length; b++) {
      first[0] = (byte) b;
      int node = 0;
      int depth = 0;
      while (depth < JUMP_BITS && left[node] != LEAF) {
        node = bit(first, depth) == 0 ? left[node] : right[node];
        depth++;
      }
      jump[b] = ((long) depth << 32) | node;
    }
  }

  private static int bit(byte[] address, int depth) {
    return (address[depth >>> 3] >>> (7 - (depth & 7))) & 1;
  }

  /**
   * The leaf for {@code address}: the value in the low 32 bits and the leaf's depth (the prefix
   * length over which the value holds) in the high 32 bits.
   */
  public long find(byte[] address) {
    long start = jump[address[0] & 0xff];
    return leafFrom(address, (int) start, (int) (start >>> 32));
  }

  /**
   * The shortest prefix of {@code address} under which every region belongs to {@code regionClass}
   * (a bit set of region indexes); without masks, the leaf depth.
   */
  public int scope(byte[] address, long regionClass) {
    if (masks == null) {
      return (int) (find(address) >>> 32);
    }
    // A node's regions include those of every node below it, so along the path the condition
    // fails down to one depth and holds from there on: when it fails at the jump's node, it failed
    // at every node above it too, and the walk goes on from there.
    long start = jump[address[0] & 0xff];
    int node = (int) start;
    return (masks[node] & ~regionClass) == 0
        ? scopeFrom(address, regionClass, 0, 0)
        : scopeFrom(address, regionClass, node, (int) (start >>> 32));
  }

  /** {@link #find} walked from the root, without the jump table: what the table must agree with. */
  long findFromRoot(byte[] address) {
    return leafFrom(address, 0, 0);
  }

  /** {@link #scope} walked from the root, without the jump table. */
  int scopeFromRoot(byte[] address, long regionClass) {
    return scopeFrom(address, regionClass, 0, 0);
  }

  /** The walk from {@code node} at {@code depth} down to the leaf, packed as {@link #find}'s. */
  private long leafFrom(byte[] address, int node, int depth) {
    while (left[node] != LEAF) {
      node = bit(address, depth) == 0 ? left[node] : right[node];
      depth++;
    }
    return ((long) depth << 32) | (values[node] & 0xffffffffL);
  }

  /** The walk from {@code node} at {@code depth} down to where {@link #scope}'s condition holds. */
  private int scopeFrom(byte[] address, long regionClass, int node, int depth) {
    while ((masks[node] & ~regionClass) != 0 && left[node] != LEAF) {
      node = bit(address, depth) == 0 ? left[node] : right[node];
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
