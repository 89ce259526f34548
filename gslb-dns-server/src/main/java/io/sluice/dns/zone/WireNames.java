package io.sluice.dns.zone;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.Name;

/**
 * An immutable table from domain names to values, looked up by a name as it sits in a packet
 * (uncompressed wire form, any letter case) so that answering a query needs no dnsjava {@link
 * Name}: one hash of the question's bytes, computed while the parser walks them, and a compare of
 * the bytes. Keys are stored in canonical (lower-case) wire form; open addressing over flat arrays.
 * The zone index finds the zone of a question in one by its origins.
 */
public final class WireNames<V> {
  private final int[] hashes;
  private final byte[][] keys;
  private final Object[] values;
  private final int mask;

  private WireNames(Collection<? extends Map.Entry<Name, V>> entries) {
    int size = Integer.highestOneBit(Math.max(2, entries.size() * 2 - 1)) << 1;
    hashes = new int[size];
    keys = new byte[size][];
    values = new Object[size];
    mask = size - 1;
    for (Map.Entry<Name, V> e : entries) {
      byte[] key = e.getKey().toWireCanonical();
      int h = hash(key, 0, key.length);
      int i = h & mask;
      while (keys[i] != null) {
        i = (i + 1) & mask;
      }
      hashes[i] = h;
      keys[i] = key;
      values[i] = e.getValue();
    }
  }

  /** A table of {@code entries}. */
  public static <V> WireNames<V> of(Map<Name, V> entries) {
    return new WireNames<>(entries.entrySet());
  }

  /**
   * A table of {@code names} (no two equal), each its own value: no map of dnsjava names, whose
   * hash gives numbered names nearby values, on the way.
   */
  static WireNames<Name> ofNames(Collection<Name> names) {
    List<Map.Entry<Name, Name>> entries = new ArrayList<>(names.size());
    for (Name n : names) {
      entries.add(Map.entry(n, n));
    }
    return new WireNames<>(entries);
  }

  /**
   * The value of the name in {@code b} at {@code off}, {@code len} bytes long with its root label,
   * whose {@link #hash} is {@code hash}; null when there is none.
   */
  @SuppressWarnings("unchecked")
  public V get(byte[] b, int off, int len, int hash) {
    for (int i = hash & mask; ; i = (i + 1) & mask) {
      byte[] key = keys[i];
      if (key == null) {
        return null;
      }
      if (hashes[i] == hash && key.length == len && Zone.sameIgnoringCase(key, b, off)) {
        return (V) values[i];
      }
    }
  }

  /** The value of {@code name}, or null. */
  public V get(Name name) {
    byte[] key = name.toWireCanonical();
    return get(key, 0, key.length, hash(key, 0, key.length));
  }

  /**
   * The hash of {@code len} bytes of a wire-form name at {@code off}, ignoring ASCII letter case
   * (length octets are below 64, so lower-casing leaves them alone).
   */
  public static int hash(byte[] b, int off, int len) {
    // One hash for this table, the caches and the zones' node tables: the parser computes it once.
    return Zone.wireHash(b, off, len);
  }
}
