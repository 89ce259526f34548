package io.sluice.dns.transfer;

import io.sluice.core.config.Cidr;
import io.sluice.dns.zone.Zone;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Type;

/**
 * One zone as secondaries get it: the compiled zone with the serial of the transfer rule, each GSLB
 * service name answered by its configured fallback records, who may transfer it (networks, TSIG
 * key), whom to NOTIFY, the differences kept for IXFR and, when it cannot be transferred, why.
 * Immutable; iterating its records reads the compiled zone in place, so a transfer of a big zone
 * copies nothing up front.
 */
public final class TransferZone {
  private final Zone zone;
  private final Map<Name, List<Record>> fallbacks;
  private final Access access;
  private final String refusal;
  private final List<ZoneDiff> history;
  private final ZoneDigest digest;

  /**
   * Who may transfer a zone and who hears of its changes: client networks (empty: any), the key
   * requests must be signed with (null: none), the secondaries to NOTIFY.
   */
  record Access(List<Cidr> allow, TsigKey key, List<InetSocketAddress> secondaries) {
    static final Access NONE = new Access(List.of(), null, List.of());

    Access {
      allow = List.copyOf(allow);
      secondaries = List.copyOf(secondaries);
    }
  }

  private TransferZone(
      Zone zone,
      Map<Name, List<Record>> fallbacks,
      Access access,
      String refusal,
      List<ZoneDiff> history,
      ZoneDigest digest) {
    this.zone = zone;
    this.fallbacks = Map.copyOf(fallbacks);
    this.access = access;
    this.refusal = refusal;
    this.history = List.copyOf(history);
    this.digest = digest;
  }

  /** {@code zone} with the services' {@code fallbacks}, only to read its records. */
  static TransferZone content(Zone zone, Map<Name, List<Record>> fallbacks) {
    return new TransferZone(zone, fallbacks, Access.NONE, null, List.of(), null);
  }

  /** {@code content} as offered: with its access rules, refusal, kept differences and digest. */
  static TransferZone offered(
      TransferZone content,
      Access access,
      String refusal,
      List<ZoneDiff> history,
      ZoneDigest digest) {
    return new TransferZone(content.zone, content.fallbacks, access, refusal, history, digest);
  }

  /** The apex. */
  public Name origin() {
    return zone.origin();
  }

  /** The zone's SOA with its transfer serial. */
  public SOARecord soa() {
    for (RRset s : zone.rrsets(zone.origin())) {
      if (s.getType() == Type.SOA) {
        return (SOARecord) s.first();
      }
    }
    throw new IllegalStateException("zone " + zone.originText() + " has no SOA");
  }

  /** The current serial. */
  public long serial() {
    return soa().getSerial();
  }

  /** The secondaries told of every change. */
  public List<InetSocketAddress> notifyTargets() {
    return access.secondaries();
  }

  /** The key transfers must be signed with, or null when none is required. */
  public TsigKey key() {
    return access.key();
  }

  /** Why the zone cannot be transferred, or null when it can. */
  public String refusal() {
    return refusal;
  }

  ZoneDigest digest() {
    return digest;
  }

  List<ZoneDiff> history() {
    return history;
  }

  /** Whether a client at {@code address} may ask (when networks are listed). */
  boolean allows(byte[] address) {
    if (access.allow().isEmpty()) {
      return true;
    }
    for (Cidr c : access.allow()) {
      if (contains(c, address)) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(Cidr c, byte[] a) {
    byte[] n = c.address();
    if (n.length != a.length) {
      return false;
    }
    int bits = c.prefix();
    for (int i = 0; i < n.length && bits > 0; i++, bits -= 8) {
      int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
      if ((n[i] & mask) != (a[i] & mask)) {
        return false;
      }
    }
    return true;
  }

  /** The RRsets at {@code name} as transferred: the zone's, then the fallback of its service. */
  List<List<Record>> rrsetsAt(Name name) {
    List<List<Record>> out = new ArrayList<>();
    for (RRset s : zone.rrsets(name)) {
      out.add(s.rrs(false));
    }
    List<Record> fb = fallbacks.get(name);
    if (fb != null) {
      List<Record> a = new ArrayList<>();
      List<Record> aaaa = new ArrayList<>();
      for (Record r : fb) {
        (r.getType() == Type.A ? a : aaaa).add(r);
      }
      if (!a.isEmpty()) {
        out.add(a);
      }
      if (!aaaa.isEmpty()) {
        out.add(aaaa);
      }
    }
    return out;
  }

  /** Every owner name, empty non-terminals included. */
  Set<Name> names() {
    return zone.names();
  }

  /** Every record, the SOA first. */
  Iterator<Record> recordsWithSoa() {
    Iterator<Record> rest = records();
    SOARecord soa = soa();
    return new Iterator<>() {
      private boolean first = true;

      @Override
      public boolean hasNext() {
        return first || rest.hasNext();
      }

      @Override
      public Record next() {
        if (first) {
          first = false;
          return soa;
        }
        return rest.next();
      }
    };
  }

  /**
   * Every record but the SOA: the compiled zone's RRsets read in place (no name is looked up, so a
   * big zone costs no hashing), then the services' fallback records.
   */
  Iterator<Record> records() {
    Iterator<RRset> sets = zone.rrsetIterator();
    Iterator<List<Record>> extra = fallbacks.values().iterator();
    return new Iterator<>() {
      private Iterator<Record> current = Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext()) {
          if (sets.hasNext()) {
            RRset s = sets.next();
            if (s.getType() != Type.SOA) {
              current = s.rrs(false).iterator();
            }
          } else if (extra.hasNext()) {
            current = extra.next().iterator();
          } else {
            return false;
          }
        }
        return true;
      }

      @Override
      public Record next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }
    };
  }
}
