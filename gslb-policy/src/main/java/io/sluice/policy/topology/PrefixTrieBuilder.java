package io.sluice.policy.topology;

import java.util.Arrays;

/**
 * Builds a {@link PrefixTrie}: database networks first, then explicit networks that replace
 * whatever lies under them, then a default for addresses nothing covers. Not thread-safe; used once
 * per configuration.
 */
final class PrefixTrieBuilder {
  private static final int UNSET = Integer.MIN_VALUE;

  private final int bits;
  private int[] left = new int[64];
  private int[] right = new int[64];
  private int[] values = new int[64];
  private int size;

  PrefixTrieBuilder(int bits) {
    this.bits = bits;
    newNode();
  }

  private int newNode() {
    if (size == values.length) {
      int n = size * 2;
      left = Arrays.copyOf(left, n);
      right = Arrays.copyOf(right, n);
      values = Arrays.copyOf(values, n);
    }
    left[size] = PrefixTrie.LEAF;
    right[size] = PrefixTrie.LEAF;
    values[size] = UNSET;
    return size++;
  }

  private int walk(byte[] address, int prefix) {
    int node = 0;
    for (int depth = 0; depth < prefix; depth++) {
      int bit = (address[depth >>> 3] >>> (7 - (depth & 7))) & 1;
      int next = bit == 0 ? left[node] : right[node];
      if (next == PrefixTrie.LEAF) {
        next = newNode();
        if (bit == 0) {
          left[node] = next;
        } else {
          right[node] = next;
        }
      }
      node = next;
    }
    return node;
  }

  /** Sets the value of a network; longer networks inserted before or after keep their own. */
  void put(byte[] address, int prefix, int value) {
    int node = walk(address, prefix); // walk may grow (replace) the arrays
    values[node] = value;
  }

  /** Sets the value of a network and drops everything under it (an operator's map wins). */
  void override(byte[] address, int prefix, int value) {
    int node = walk(address, prefix);
    values[node] = value;
    left[node] = PrefixTrie.LEAF;
    right[node] = PrefixTrie.LEAF;
  }

  /**
   * The canonical trie: values pushed down to leaves, {@code fallback} where nothing was set, equal
   * sibling leaves merged. {@code regionOf} maps a value to its region index for the masks; {@code
   * regions} is the number of region indexes (masks are kept when it is at most 64).
   */
  PrefixTrie build(int fallback, java.util.function.IntUnaryOperator regionOf, int regions) {
    Out out = new Out(size);
    emit(0, fallback, out, regionOf, regions <= 64);
    return new PrefixTrie(
        Arrays.copyOf(out.left, out.size),
        Arrays.copyOf(out.right, out.size),
        Arrays.copyOf(out.values, out.size),
        regions <= 64 ? Arrays.copyOf(out.masks, out.size) : null,
        bits);
  }

  /** Emits the subtree of {@code node} into {@code out} and returns its index there. */
  private int emit(
      int node,
      int inherited,
      Out out,
      java.util.function.IntUnaryOperator regionOf,
      boolean withMasks) {
    int value = node >= 0 && values[node] != UNSET ? values[node] : inherited;
    int l = node >= 0 ? left[node] : PrefixTrie.LEAF;
    int r = node >= 0 ? right[node] : PrefixTrie.LEAF;
    int self = out.add();
    if (l == PrefixTrie.LEAF && r == PrefixTrie.LEAF) {
      out.values[self] = value;
      out.masks[self] = withMasks ? 1L << regionOf.applyAsInt(value) : 0;
      return self;
    }
    // A missing child inherits this node's value; node -1 stands for such an implicit leaf.
    int li = emit(l, value, out, regionOf, withMasks);
    int ri = emit(r, value, out, regionOf, withMasks);
    if (out.left[li] == PrefixTrie.LEAF
        && out.left[ri] == PrefixTrie.LEAF
        && out.values[li] == out.values[ri]) {
      int merged = out.values[li];
      out.size = self + 1; // children were emitted last; drop them
      out.left[self] = PrefixTrie.LEAF;
      out.right[self] = PrefixTrie.LEAF;
      out.values[self] = merged;
      out.masks[self] = out.masks[li];
      return self;
    }
    out.left[self] = li;
    out.right[self] = ri;
    out.values[self] = 0;
    out.masks[self] = out.masks[li] | out.masks[ri];
    return self;
  }

  private static final class Out {
    int[] left;
    int[] right;
    int[] values;
    long[] masks;
    int size;

    Out(int capacity) {
      int n = Math.max(16, capacity * 2);
      left = new int[n];
      right = new int[n];
      values = new int[n];
      masks = new long[n];
    }

    int add() {
      if (size == values.length) {
        int n = size * 2;
        left = Arrays.copyOf(left, n);
        right = Arrays.copyOf(right, n);
        values = Arrays.copyOf(values, n);
        masks = Arrays.copyOf(masks, n);
      }
      left[size] = PrefixTrie.LEAF;
      right[size] = PrefixTrie.LEAF;
      return size++;
    }
  }
}
