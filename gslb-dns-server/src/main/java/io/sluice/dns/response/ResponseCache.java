package io.sluice.dns.response;

import org.xbill.DNS.Name;

/**
 * A bounded, direct-mapped cache of encoded response templates keyed by (owner, qname, qtype),
 * where the owner is compared by identity: a planner {@code Decision}, or null for zone data. Reads
 * and writes take no lock: each slot holds an immutable entry, and a racing write only replaces one
 * entry with another valid one. A collision evicts; the cache never grows.
 */
final class ResponseCache {
  private final Entry[] slots;
  private final int mask;

  ResponseCache(int sizePowerOfTwo) {
    if (Integer.bitCount(sizePowerOfTwo) != 1) {
      throw new IllegalArgumentException("size must be a power of two: " + sizePowerOfTwo);
    }
    this.slots = new Entry[sizePowerOfTwo];
    this.mask = sizePowerOfTwo - 1;
  }

  Template get(Object owner, Name qname, int qtype) {
    Entry e = slots[index(owner, qname, qtype)];
    return e != null && e.owner == owner && e.qtype == qtype && e.qname.equals(qname)
        ? e.template
        : null;
  }

  void put(Object owner, Name qname, int qtype, Template template) {
    slots[index(owner, qname, qtype)] = new Entry(owner, qname, qtype, template);
  }

  private int index(Object owner, Name qname, int qtype) {
    int h = System.identityHashCode(owner) * 31 + qname.hashCode();
    h = h * 31 + qtype;
    h ^= h >>> 16;
    return h & mask;
  }

  private record Entry(Object owner, Name qname, int qtype, Template template) {}
}
