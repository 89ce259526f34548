package io.sluice.dns.zone;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

/**
 * The nodes of one zone by owner name: an open-addressing table of the nodes themselves (each knows
 * its name) beside the hash of each, so a name costs two array slots instead of a hash map entry
 * and a look-up compares names only when their hashes match. The hash is its own: dnsjava's name
 * hash (h * 9 + byte) maps numbered names such as h10 and h09 to the same value, which put 1 M
 * generated names on 0.6 M hashes. Immutable once built.
 *
 * <p>A table of up to {@link #KEYED_LIMIT} names also keeps each name's canonical wire form beside
 * it, so a look-up compares bytes without first copying the stored name out of its dnsjava form; a
 * larger one (a zone of a million records) saves that memory and copies on a hit instead.
 */
final class NodeTable {
  /** The most names whose canonical wire forms a table keeps (about 50 bytes each). */
  static final int KEYED_LIMIT = 1 << 16;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final ZoneNode[] slots;
  private final byte[][] keys;
  private final int[] hashes;
  private final int mask;
  private final int shift;
  private final int size;
  private final Map<Name, ZoneNode> wildcards;
  private final boolean hasDname;

  NodeTable(Collection<ZoneNode> nodes) {
    this(filled(nodes));
  }

  private static Builder filled(Collection<ZoneNode> nodes) {
    Builder b = new Builder(nodes.size());
    for (ZoneNode node : nodes) {
      if (b.putIfAbsent(node) != null) {
        throw new IllegalArgumentException("two nodes for " + node.name());
      }
    }
    return b;
  }

  private NodeTable(Builder b) {
    this.slots = b.slots;
    this.hashes = b.hashes;
    this.mask = b.mask;
    this.shift = b.shift;
    this.size = b.size;
    this.wildcards = Map.copyOf(b.wildcards);
    this.hasDname = b.hasDname;
    this.keys = size <= KEYED_LIMIT ? keysOf(slots) : null;
  }

  private static byte[][] keysOf(ZoneNode[] slots) {
    byte[][] keys = new byte[slots.length][];
    for (int i = 0; i < slots.length; i++) {
      if (slots[i] != null) {
        keys[i] = slots[i].name().toWireCanonical();
      }
    }
    return keys;
  }

  /**
   * Fills a table node by node, so a compiler can hand each node over as it makes it and drop its
   * own copy of the data at once, instead of holding a map of every node beside the table.
   */
  static final class Builder {
    private ZoneNode[] slots;
    private int[] hashes;
    private int mask;
    private int shift;
    private int size;

    /** The wildcard nodes by the name they stand below, and whether a node owns a DNAME. */
    private final Map<Name, ZoneNode> wildcards = new HashMap<>();

    private boolean hasDname;

    /** A builder sized for {@code expected} nodes; it grows past them. */
    Builder(int expected) {
      allocate(capacity(expected));
    }

    // Two-thirds full at most: a miss (NXDOMAIN, a wildcard's encloser search) ends after a short
    // run of slots.
    private static int capacity(int n) {
      return Integer.highestOneBit(Math.max(2, n + n / 2)) << 1;
    }

    private void allocate(int capacity) {
      slots = new ZoneNode[capacity];
      hashes = new int[capacity];
      mask = capacity - 1;
      shift = Integer.numberOfLeadingZeros(capacity) + 1;
    }

    /** The node of {@code node}'s name already added, or null having added {@code node}. */
    ZoneNode putIfAbsent(ZoneNode node) {
      return putIfAbsent(node, hash(node.name()));
    }

    /** As {@link #putIfAbsent(ZoneNode)}, with the {@link #hash} of the node's name given. */
    ZoneNode putIfAbsent(ZoneNode node, int h) {
      int i = find(node.name(), h);
      if (slots[i] != null) {
        return slots[i];
      }
      if ((size + 1) * 3 > slots.length * 2) {
        grow();
        i = find(node.name(), h);
      }
      slots[i] = node;
      hashes[i] = h;
      size++;
      noted(node);
      return null;
    }

    // Kept as the nodes go in, so the zone needs no second walk over every node for them.
    private void noted(ZoneNode node) {
      if (node.name().isWild()) {
        wildcards.put(new Name(node.name(), 1), node);
      }
      hasDname |= node.has(Type.DNAME);
    }

    /** Puts {@code node} in place of the node of the same name, which must be there. */
    void replace(ZoneNode node) {
      replace(node, hash(node.name()));
    }

    /** As {@link #replace(ZoneNode)}, with the {@link #hash} of the node's name given. */
    void replace(ZoneNode node, int h) {
      int i = find(node.name(), h);
      if (slots[i] == null) {
        throw new IllegalArgumentException("no node for " + node.name());
      }
      slots[i] = node;
      noted(node);
    }

    /** The slot of {@code name}, or the empty slot where it would go. */
    private int find(Name name, int h) {
      int i = (h * 0x9E3779B9) >>> shift;
      while (slots[i] != null && !(hashes[i] == h && slots[i].name().equals(name))) {
        i = (i + 1) & mask;
      }
      return i;
    }

    private void grow() {
      ZoneNode[] oldSlots = slots;
      int[] oldHashes = hashes;
      allocate(oldSlots.length * 2);
      for (int j = 0; j < oldSlots.length; j++) {
        if (oldSlots[j] != null) {
          int i = (oldHashes[j] * 0x9E3779B9) >>> shift;
          while (slots[i] != null) {
            i = (i + 1) & mask;
          }
          slots[i] = oldSlots[j];
          hashes[i] = oldHashes[j];
        }
      }
    }

    /** The table; the builder is not used afterwards. */
    NodeTable build() {
      return new NodeTable(this);
    }
  }

  static int hash(Name name) {
    byte[] wire = name.toWireCanonical();
    return hash(wire, 0, wire.length);
  }

  /**
   * The hash of {@code len} bytes of a wire-form name at {@code off}, ignoring ASCII letter case
   * (length octets are below 64, so lower-casing leaves them alone), the hash the query parser
   * computes over the question as it walks it. Eight bytes at a time, lower-cased together (see
   * {@link #lower8}), each word multiplied in and folded, with a final mix: every query hashes its
   * name once, and a byte at a time this was a fifth of the work of answering it.
   */
  static int hash(byte[] b, int off, int len) {
    long h = 0x9E3779B97F4A7C15L ^ len;
    int end = off + len;
    int i = off;
    for (; i + 8 <= end; i += 8) {
      h = mixIn(h, lower8((long) LONGS.get(b, i)));
    }
    int rest = end - i;
    if (rest > 0) {
      long w;
      if (len >= 8) {
        // The last eight bytes, shifted down past those already hashed (little-endian order).
        w = (long) LONGS.get(b, end - 8) >>> ((8 - rest) << 3);
      } else {
        w = 0;
        for (int k = 0; k < rest; k++) {
          w |= (long) (b[i + k] & 0xff) << (k << 3);
        }
      }
      h = mixIn(h, lower8(w));
    }
    h ^= h >>> 31;
    h *= 0x94D049BB133111EBL;
    h ^= h >>> 29;
    return (int) (h ^ (h >>> 32));
  }

  private static long mixIn(long h, long word) {
    long x = (h ^ word) * 0x9E3779B97F4A7C15L;
    return x ^ (x >>> 32);
  }

  /**
   * The eight bytes of {@code x} with the ASCII capitals 'A' to 'Z' turned to lower case and every
   * other byte value left as it is. Per byte, with its top bit cleared: adding 0x3F carries into
   * the top bit from 0x41 ('A') up, adding 0x25 from 0x5B (past 'Z'); no sum leaves its byte.
   */
  static long lower8(long x) {
    long high = x & 0x8080808080808080L;
    long low7 = x & 0x7F7F7F7F7F7F7F7FL;
    long upper = (low7 + 0x3F3F3F3F3F3F3F3FL) & ~(low7 + 0x2525252525252525L) & ~high;
    return x | ((upper & 0x8080808080808080L) >>> 2);
  }

  static int lower(byte c) {
    return c >= 'A' && c <= 'Z' ? c + 32 : c & 0xff;
  }

  private int slot(int h) {
    // Fibonacci hashing: the slot comes from the high bits, which depend on every byte (as in the
    // builder's find).
    return (h * 0x9E3779B9) >>> shift;
  }

  /**
   * The node of the wire-form name of {@code len} bytes at {@code off} in {@code b} (any letter
   * case), whose {@link #hash} is {@code h}; null when there is none. Names are compared only when
   * their hashes match.
   */
  ZoneNode get(byte[] b, int off, int len, int h) {
    for (int i = slot(h); ; i = (i + 1) & mask) {
      ZoneNode n = slots[i];
      if (n == null) {
        return null;
      }
      if (hashes[i] == h
          && sameName(keys != null ? keys[i] : n.name().toWireCanonical(), b, off, len)) {
        return n;
      }
    }
  }

  private static boolean sameName(byte[] key, byte[] b, int off, int len) {
    return key.length == len && sameIgnoringCase(key, b, off);
  }

  /**
   * Whether the {@code key.length} bytes at {@code off} in {@code b} are {@code key} (canonical, so
   * lower case) in any letter case. Most questions come in lower case: one vectorised compare.
   */
  static boolean sameIgnoringCase(byte[] key, byte[] b, int off) {
    int len = key.length;
    if (Arrays.equals(key, 0, len, b, off, off + len)) {
      return true;
    }
    for (int i = 0; i < len; i++) {
      if ((key[i] & 0xff) != lower(b[off + i])) {
        return false;
      }
    }
    return true;
  }

  /** The node of {@code name}, or null. */
  ZoneNode get(Name name) {
    int h = hash(name);
    for (int i = slot(h); ; i = (i + 1) & mask) {
      ZoneNode n = slots[i];
      if (n == null || (hashes[i] == h && n.name().equals(name))) {
        return n;
      }
    }
  }

  /**
   * The wildcard nodes (such as {@code *.example.com.}) by the name they stand below ({@code
   * example.com.}).
   */
  Map<Name, ZoneNode> wildcards() {
    return wildcards;
  }

  /** Whether a node owns a DNAME. */
  boolean hasDname() {
    return hasDname;
  }

  boolean contains(Name name) {
    return get(name) != null;
  }

  int size() {
    return size;
  }

  /** Every node, in table order. */
  Iterable<ZoneNode> nodes() {
    return () -> new NodeIterator();
  }

  /** The owner names, as a read-only set. */
  java.util.Set<Name> names() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Name> iterator() {
        NodeIterator it = new NodeIterator();
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Name next() {
            return it.next().name();
          }
        };
      }

      @Override
      public int size() {
        return size;
      }

      @Override
      public boolean contains(Object o) {
        return o instanceof Name n && NodeTable.this.contains(n);
      }
    };
  }

  private final class NodeIterator implements Iterator<ZoneNode> {
    private int at = advance(0);

    private int advance(int from) {
      while (from < slots.length && slots[from] == null) {
        from++;
      }
      return from;
    }

    @Override
    public boolean hasNext() {
      return at < slots.length;
    }

    @Override
    public ZoneNode next() {
      if (at >= slots.length) {
        throw new NoSuchElementException();
      }
      ZoneNode n = slots[at];
      at = advance(at + 1);
      return n;
    }
  }
}
