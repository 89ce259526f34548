package io.sluice.dns.zone;

import java.util.Arrays;
import org.xbill.DNS.Name;

/**
 * The compiler's data by owner name, in the order the names were first given: the names, values and
 * hashes in three arrays filled in that order, and an open-addressing index over them that holds
 * each name's hash beside its position, so a look-up compares names only when hashes match. The
 * hash is the {@link NodeTable}'s own (dnsjava's name hash puts numbered names such as h10 and h09
 * on one value, which turned a hash map of a million generated names into chains and trees), and it
 * is kept, so the node table is filled without hashing every name again. Costs far less per name
 * than a linked hash map entry. Not thread-safe.
 */
final class OwnerTable {
  private Name[] names;
  private Object[] values;
  private int[] hashes;
  private int size;

  /** Per slot: the name's hash in the high half, its position + 1 in the low half; 0 is empty. */
  private long[] index;

  private int shift;
  private int mask;

  /** A table sized for {@code expected} names; it grows past them. */
  OwnerTable(int expected) {
    int n = Math.max(expected, 8);
    names = new Name[n];
    values = new Object[n];
    hashes = new int[n];
    allocateIndex(Integer.highestOneBit(Math.max(2, n + n / 2)) << 1);
  }

  private void allocateIndex(int capacity) {
    index = new long[capacity];
    mask = capacity - 1;
    shift = Integer.numberOfLeadingZeros(capacity) + 1;
  }

  /** The position of {@code name} in the order the names were first given, or -1. */
  int indexOf(Name name) {
    return (int) index[slot(name, NodeTable.hash(name))] - 1;
  }

  /** The value of {@code name}, or null. */
  Object get(Name name) {
    long e = index[slot(name, NodeTable.hash(name))];
    return e == 0 ? null : values[(int) e - 1];
  }

  /** The value of {@code name} already there, or null having added {@code value} for it. */
  Object putIfAbsent(Name name, Object value) {
    int h = NodeTable.hash(name);
    int i = slot(name, h);
    long e = index[i];
    if (e != 0) {
      return values[(int) e - 1];
    }
    add(i, name, h, value);
    return null;
  }

  /** Sets the value of {@code name}, which keeps its place when it was there already. */
  void put(Name name, Object value) {
    int h = NodeTable.hash(name);
    int i = slot(name, h);
    long e = index[i];
    if (e != 0) {
      values[(int) e - 1] = value;
    } else {
      add(i, name, h, value);
    }
  }

  private void add(int slot, Name name, int h, Object value) {
    if (size == names.length) {
      int n = size + (size >> 1) + 1;
      names = Arrays.copyOf(names, n);
      values = Arrays.copyOf(values, n);
      hashes = Arrays.copyOf(hashes, n);
    }
    names[size] = name;
    values[size] = value;
    hashes[size] = h;
    size++;
    index[slot] = ((long) h << 32) | size;
    if (size * 3L > index.length * 2L) {
      allocateIndex(index.length * 2);
      for (int k = 0; k < size; k++) {
        int j = (hashes[k] * 0x9E3779B9) >>> shift;
        while (index[j] != 0) {
          j = (j + 1) & mask;
        }
        index[j] = ((long) hashes[k] << 32) | (k + 1);
      }
    }
  }

  /** The slot of {@code name}, whose hash is {@code h}, or the empty slot where it would go. */
  private int slot(Name name, int h) {
    int i = (h * 0x9E3779B9) >>> shift;
    for (long e = index[i]; e != 0; e = index[i]) {
      if ((int) (e >>> 32) == h && names[(int) e - 1].equals(name)) {
        return i;
      }
      i = (i + 1) & mask;
    }
    return i;
  }

  /** How many names there are. */
  int size() {
    return size;
  }

  /** The {@code i}-th name in the order they were first given. */
  Name name(int i) {
    return names[i];
  }

  /** The value of the {@code i}-th name. */
  Object value(int i) {
    return values[i];
  }

  /** The {@link NodeTable#hash} of the {@code i}-th name. */
  int hash(int i) {
    return hashes[i];
  }

  /** Drops the index: afterwards only the names, values and hashes by position are read. */
  void dropIndex() {
    index = null;
  }
}
