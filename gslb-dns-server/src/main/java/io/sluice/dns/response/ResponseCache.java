package io.sluice.dns.response;

import io.sluice.dns.zone.WireNames;
import org.xbill.DNS.Name;

/**
 * A bounded, direct-mapped cache of encoded response templates keyed by (owner, name, qtype), where
 * the owner is compared by identity: a planner {@code Decision}, or null for zone data. The name is
 * a {@link Name} or, for a name of the zone's own, the {@link StaticAnswers.Node} that stands for
 * it; its hash is the question's {@link WireNames#hash}, known without building a name. A negative
 * answer shared by every missing name of one length has the zone as owner, the length as name and
 * hash, and type -1 (see {@code Responder}'s shared negatives). Reads and writes take no lock: each
 * slot holds an immutable entry, and a racing write only replaces one entry with another valid one.
 * A collision evicts; the cache never grows.
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

  Template get(Object owner, Object name, int nameHash, int qtype) {
    Entry e = slots[index(owner, nameHash, qtype)];
    // The hash first: most misses of a direct-mapped cache are another name in the slot, and
    // comparing two dnsjava names computes the hash of a name built for this question.
    return e != null
            && e.owner == owner
            && e.qtype == qtype
            && e.nameHash == nameHash
            && (e.name == name || e.name.equals(name))
        ? e.template
        : null;
  }

  void put(Object owner, Object name, int nameHash, int qtype, Template template) {
    slots[index(owner, nameHash, qtype)] = new Entry(owner, name, nameHash, qtype, template);
  }

  private int index(Object owner, int nameHash, int qtype) {
    int h = System.identityHashCode(owner) * 31 + nameHash;
    h = h * 31 + qtype;
    h ^= h >>> 16;
    return h & mask;
  }

  private record Entry(Object owner, Object name, int nameHash, int qtype, Template template) {}
}
