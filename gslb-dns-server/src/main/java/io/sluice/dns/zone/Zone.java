package io.sluice.dns.zone;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNAMERecord;
import org.xbill.DNS.HINFORecord;
import org.xbill.DNS.MXRecord;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.NameTooLongException;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Type;

/**
 * One compiled, immutable zone. It answers (name, type) questions the way RFC 1034 §4.3.2 and RFC
 * 4592 describe: delegations first, then exact names (following CNAMEs inside the zone), then
 * wildcards from the closest encloser. Every name between a record and the apex exists as a node,
 * so empty non-terminals answer NODATA instead of NXDOMAIN.
 */
public final class Zone {
  /**
   * CNAME links followed inside the zone (DNAME substitutions included): as at Knot, the target of
   * the last one is still answered if it has the data, but a further CNAME is not added.
   */
  static final int MAX_CHAIN = 5;

  private final Name origin;
  private final String originText;
  private final SOARecord negativeSoa;
  private final NodeTable nodes;
  private final CutSet cuts;
  private final Map<Name, ZoneNode> wildcards;
  private final int originLabels;
  private final byte[] originWire;
  private final boolean hasDname;
  private final boolean plainNegatives;

  /** What the zone read from its master file, for a reload of the same file; or null. */
  private final MasterFile masterFile;

  Zone(Name origin, SOARecord soa, NodeTable nodes, CutSet cuts, MasterFile masterFile) {
    this.origin = origin;
    this.masterFile = masterFile;
    this.originText = origin.toString().toLowerCase(Locale.ROOT);
    long negTtl = Math.min(soa.getTTL(), soa.getMinimum());
    this.negativeSoa =
        new SOARecord(
            origin,
            DClass.IN,
            negTtl,
            soa.getHost(),
            soa.getAdmin(),
            soa.getSerial(),
            soa.getRefresh(),
            soa.getRetry(),
            soa.getExpire(),
            soa.getMinimum());
    this.nodes = nodes;
    this.cuts = cuts;
    this.wildcards = nodes.wildcards();
    this.originLabels = origin.labels();
    this.originWire = origin.toWireCanonical();
    this.hasDname = nodes.hasDname();
    this.plainNegatives = this.cuts.isEmpty() && wildcards.isEmpty() && !hasDname;
  }

  /**
   * True when every name below the origin that the zone does not have is answered alike: NXDOMAIN
   * with the negative SOA, since no wildcard, DNAME or delegation can answer or redirect it.
   */
  public boolean plainNegatives() {
    return plainNegatives;
  }

  /** The length of the origin in wire form. */
  public int originWireLength() {
    return originWire.length;
  }

  /** What the zone read from its master file (read without a problem), or null. */
  MasterFile masterFile() {
    return masterFile;
  }

  /** How many names the zone has, empty non-terminals included. */
  public int size() {
    return nodes.size();
  }

  /** The apex name. */
  public Name origin() {
    return origin;
  }

  /** The apex in lower-case text with its trailing dot, as used in metrics and logs. */
  public String originText() {
    return originText;
  }

  /** The SOA served in the authority section of negative answers (TTL per RFC 2308 §5). */
  public SOARecord negativeSoa() {
    return negativeSoa;
  }

  /**
   * The negative-answer SOA with its TTL lowered to {@code maxTtl} when that is shorter; the shared
   * record when it is not (or {@code maxTtl} is negative: unknown).
   */
  public SOARecord negativeSoa(long maxTtl) {
    if (maxTtl < 0 || maxTtl >= negativeSoa.getTTL()) {
      return negativeSoa;
    }
    return new SOARecord(
        origin,
        DClass.IN,
        maxTtl,
        negativeSoa.getHost(),
        negativeSoa.getAdmin(),
        negativeSoa.getSerial(),
        negativeSoa.getRefresh(),
        negativeSoa.getRetry(),
        negativeSoa.getExpire(),
        negativeSoa.getMinimum());
  }

  /** Every owner name of the zone, empty non-terminals included. */
  public Set<Name> names() {
    return nodes.names();
  }

  /**
   * The hash {@link #node(byte[], int, int, int)} takes, of {@code len} bytes of a wire-form name
   * at {@code off} in {@code b}, whatever their letter case.
   */
  public static int wireHash(byte[] b, int off, int len) {
    return NodeTable.hash(b, off, len);
  }

  /**
   * The node of exactly the wire-form name (uncompressed, any letter case, {@code len} bytes with
   * the root label) at {@code off} in {@code b}, whose {@link #wireHash} is {@code hash}; null when
   * the zone has no such name. Answering a question this way needs no dnsjava {@link Name}.
   */
  public ZoneNode node(byte[] b, int off, int len, int hash) {
    return nodes.get(b, off, len, hash);
  }

  /** Whether the wire-form name at {@code off} in {@code b} is at or below this zone's apex. */
  boolean contains(byte[] b, int off, int len) {
    int end = off + len;
    for (int p = off; p < end; p += (b[p] & 0xff) + 1) {
      if (end - p == originWire.length && sameIgnoringCase(originWire, b, p)) {
        return true;
      }
      if (b[p] == 0) {
        return false;
      }
    }
    return false;
  }

  /**
   * Whether the bytes at {@code off} in {@code b} are the canonical (lower-case) wire-form name
   * {@code canonical} in any letter case; the caller knows that many bytes are there.
   */
  public static boolean sameIgnoringCase(byte[] canonical, byte[] b, int off) {
    return NodeTable.sameIgnoringCase(canonical, b, off);
  }

  /** The node of exactly {@code name} (no wildcard), or null when the zone has no such name. */
  public ZoneNode node(Name name) {
    return nodes.get(name);
  }

  /** The RRsets at {@code name}; empty when the name does not exist or owns nothing. */
  public Collection<RRset> rrsets(Name name) {
    ZoneNode n = nodes.get(name);
    return n == null ? List.of() : n.rrsets();
  }

  /** Every RRset of the zone, node by node in no particular order, read in place. */
  public Iterator<RRset> rrsetIterator() {
    Iterator<ZoneNode> all = nodes.nodes().iterator();
    return new Iterator<>() {
      private Iterator<RRset> node = Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!node.hasNext()) {
          if (!all.hasNext()) {
            return false;
          }
          node = all.next().rrsets().iterator();
        }
        return true;
      }

      @Override
      public RRset next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return node.next();
      }
    };
  }

  /**
   * This zone with {@code serial} in its SOA (zone transfers advance serials by their own rule);
   * this very zone when the serial is already that.
   */
  public Zone withSerial(long serial) {
    ZoneNode apex = nodes.get(origin);
    SOARecord soa = (SOARecord) apex.get(Type.SOA).get(0);
    if (soa.getSerial() == serial) {
      return this;
    }
    SOARecord next =
        new SOARecord(
            origin,
            DClass.IN,
            soa.getTTL(),
            soa.getHost(),
            soa.getAdmin(),
            serial,
            soa.getRefresh(),
            soa.getRetry(),
            soa.getExpire(),
            soa.getMinimum());
    // Fresh nodes throughout: answers encoded for this zone (its NODATA carries the old SOA) must
    // not be served from the other.
    NodeTable.Builder copy = new NodeTable.Builder(nodes.size());
    for (ZoneNode n : nodes.nodes()) {
      copy.putIfAbsent(n == apex ? n.withRecords(Type.SOA, next) : n.copy());
    }
    return new Zone(origin, next, copy.build(), cuts, masterFile);
  }

  /**
   * This zone with the RRsets of {@code records} (grouped by type, all owned by the apex) added at
   * or replacing those of the same types at the apex: the DNSKEY, CDS and CDNSKEY RRsets of a
   * signed zone. Fresh nodes throughout, as for {@link #withSerial}.
   */
  public Zone withApexRecords(List<Record> records) {
    Map<Integer, List<Record>> byType = new java.util.LinkedHashMap<>();
    for (Record r : records) {
      byType.computeIfAbsent(r.getType(), k -> new ArrayList<>()).add(r);
    }
    ZoneNode apex = nodes.get(origin);
    for (Map.Entry<Integer, List<Record>> e : byType.entrySet()) {
      Record[] set = e.getValue().toArray(new Record[0]);
      java.util.Arrays.sort(set, (a, b) -> a.compareTo(b));
      apex = apex.withRecords(e.getKey(), set);
    }
    NodeTable.Builder copy = new NodeTable.Builder(nodes.size());
    for (ZoneNode n : nodes.nodes()) {
      copy.putIfAbsent(n.name().equals(origin) ? apex : n.copy());
    }
    SOARecord soa = (SOARecord) apex.get(Type.SOA).get(0);
    return new Zone(origin, soa, copy.build(), cuts, masterFile);
  }

  /**
   * The wildcard owner (such as {@code *.example.com.}) whose records answer {@code name} (RFC 4592
   * §4.1), or null when the name exists or no wildcard matches.
   */
  public Name wildcardOwner(Name name) {
    if (nodes.get(name) != null) {
      return null;
    }
    ZoneNode w = wildcardFor(name);
    return w == null ? null : w.name();
  }

  /** The longest existing ancestor of {@code name} in this zone (the apex at least). */
  public Name closestEncloser(Name name) {
    for (int strip = 0; strip < name.labels() - originLabels; strip++) {
      Name candidate = strip == 0 ? name : new Name(name, strip);
      if (nodes.contains(candidate)) {
        return candidate;
      }
    }
    return origin;
  }

  /** The service bound to {@code name}, or null. */
  public String serviceAt(Name name) {
    ZoneNode n = nodes.get(name);
    return n == null ? null : n.service();
  }

  /** True when {@code name} is at or below a delegation (and is not the apex). */
  public boolean isDelegated(Name name) {
    return cutAbove(name) != null;
  }

  /**
   * True when the node {@code n} of this zone is a delegation point or below one: as {@link
   * #isDelegated(Name)}, but a node's own NS records say whether it is a cut, so only its ancestors
   * are looked up (none for a name just below the apex).
   */
  public boolean isDelegated(ZoneNode n) {
    if (cuts.isEmpty()) {
      return false;
    }
    Name name = n.name();
    if (n.has(Type.NS) && name.labels() > originLabels) {
      return true;
    }
    return cuts.highestAbove(name, originLabels, false) != null;
  }

  /**
   * The records of {@code type} at {@code node} when they are the whole answer to that question:
   * the node owns them and no DNAME in the zone could redirect the name (the caller has already
   * ruled out a delegation above it); null when the question needs {@link #resolve}.
   */
  public List<Record> plainRRset(ZoneNode node, int type) {
    return hasDname || node.has(Type.CNAME) ? null : node.get(type);
  }

  /** Whether {@code name} has a CNAME. */
  public boolean hasCname(Name name) {
    ZoneNode n = nodes.get(name);
    return n != null && n.has(Type.CNAME);
  }

  /** Resolves {@code qname} (at or below the origin) for {@code qtype}. */
  public Resolution resolve(Name qname, int qtype) {
    List<Record> answer = new ArrayList<>(2);
    Set<Name> visited = null;
    Name name = qname;
    for (int hop = 0; hop <= MAX_CHAIN; hop++) {
      Name cut = cutAbove(name);
      if (cut != null && !(qtype == Type.DS && cut.equals(name))) {
        // A chain that leads below a delegation ends in the referral, the chain staying
        // authoritative (as at Knot).
        return referral(cut, answer);
      }
      DNAMERecord dname = dnameAbove(name);
      if (dname != null) {
        if (hop == MAX_CHAIN) {
          return answered(answer);
        }
        // RFC 6672 §2.2: the DNAME, then a CNAME synthesized with its TTL, then the new name.
        Name target;
        try {
          target = name.fromDNAME(dname);
        } catch (NameTooLongException e) {
          answer.add(dname);
          return new Resolution(Rcode.YXDOMAIN, true, answer, List.of(), List.of(), null);
        }
        answer.add(dname);
        answer.add(new CNAMERecord(name, DClass.IN, dname.getTTL(), target));
        // The synthesized CNAME answers a CNAME question itself; it is not followed then.
        if (qtype == Type.CNAME || !target.subdomain(origin)) {
          return answered(answer);
        }
        name = target;
        continue;
      }
      ZoneNode node = nodes.get(name);
      boolean synthesized = false;
      if (node == null) {
        node = wildcardFor(name);
        if (node == null) {
          return negative(Rcode.NXDOMAIN, answer);
        }
        synthesized = true;
      }
      if (node.service() != null && (qtype == Type.A || qtype == Type.AAAA)) {
        return new Resolution(Rcode.NOERROR, true, answer, List.of(), List.of(), node.service());
      }
      if (qtype == Type.ANY) {
        if (node.isEmpty() && node.service() == null) {
          // An empty non-terminal or a wildcard's parent owns nothing: NODATA, as the reference
          // servers answer, rather than a HINFO claiming data exists.
          return negative(Rcode.NOERROR, answer);
        }
        // RFC 8482 §4.2: one synthesized HINFO instead of every RRset.
        answer.add(new HINFORecord(name, DClass.IN, negativeSoa.getTTL(), "RFC8482", ""));
        return Resolution.positive(answer);
      }
      List<Record> cname = node.get(Type.CNAME);
      if (cname != null && followsCname(qtype)) {
        if (hop == MAX_CHAIN) {
          return answered(answer);
        }
        CNAMERecord c = (CNAMERecord) cname.get(0);
        answer.add(synthesized ? c.withName(name) : c);
        Name target = c.getTarget();
        if (visited == null) {
          visited = new HashSet<>();
        }
        if (!target.subdomain(origin) || !visited.add(name) || visited.contains(target)) {
          return answered(answer);
        }
        name = target;
        continue;
      }
      List<Record> set = node.get(qtype);
      if (set == null) {
        return negative(Rcode.NOERROR, answer);
      }
      for (Record r : set) {
        answer.add(synthesized ? r.withName(name) : r);
      }
      return answered(answer);
    }
    return answered(answer);
  }

  /**
   * Whether a question of {@code qtype} at a CNAME is answered through it: every type but CNAME
   * itself and the DNSSEC types that may stand beside a CNAME (RRSIG and NSEC, RFC 4035 §2.5),
   * which are answered at the name, as Knot does.
   */
  private static boolean followsCname(int qtype) {
    return qtype != Type.CNAME && qtype != Type.RRSIG && qtype != Type.NSEC;
  }

  /** A positive answer with the addresses of the NS, MX and SRV targets it names. */
  private Resolution answered(List<Record> answer) {
    List<AdditionalTarget> additional = List.of();
    Set<Name> seen = null;
    for (Record r : answer) {
      Name target = targetOf(r);
      if (target == null) {
        continue;
      }
      if (seen == null) {
        seen = new HashSet<>();
        additional = new ArrayList<>();
      }
      // RFC 2181 §9 asks for no repetition: each target's addresses are added once.
      AdditionalTarget t = seen.add(target) ? additionalFor(target, false) : null;
      if (t != null) {
        additional.add(t);
      }
    }
    return Resolution.positive(answer, additional);
  }

  /** The name whose addresses an NS, MX or SRV record asks for (RFC 1035 §3.3); null otherwise. */
  private static Name targetOf(Record r) {
    return switch (r.getType()) {
      case Type.NS -> ((NSRecord) r).getTarget();
      case Type.MX -> ((MXRecord) r).getTarget();
      case Type.SRV -> ((SRVRecord) r).getTarget();
      default -> null;
    };
  }

  /**
   * The A and AAAA data of {@code target} in this zone: its own records, glue below a delegation,
   * or a wildcard's records under the target's name (as the reference servers add them); null when
   * the zone has no address for it.
   */
  private AdditionalTarget additionalFor(Name target, boolean required) {
    if (!target.subdomain(origin)) {
      return null;
    }
    ZoneNode node = nodes.get(target);
    boolean synthesized = false;
    if (node == null && cutAbove(target) == null) {
      node = wildcardFor(target);
      synthesized = true;
    }
    if (node == null) {
      return null;
    }
    if (node.service() != null) {
      return new AdditionalTarget(target, List.of(), List.of(), node.service(), required);
    }
    List<Record> a = addresses(node, Type.A, target, synthesized);
    List<Record> aaaa = addresses(node, Type.AAAA, target, synthesized);
    if (a.isEmpty() && aaaa.isEmpty()) {
      return null;
    }
    return new AdditionalTarget(target, a, aaaa, null, required);
  }

  private static List<Record> addresses(ZoneNode node, int type, Name owner, boolean synthesized) {
    List<Record> set = node.get(type);
    if (set == null) {
      return List.of();
    }
    if (!synthesized) {
      return set;
    }
    List<Record> out = new ArrayList<>(set.size());
    for (Record r : set) {
      out.add(r.withName(owner));
    }
    return out;
  }

  private Resolution negative(int rcode, List<Record> answer) {
    return new Resolution(rcode, true, answer, List.of(negativeSoa), List.of(), null);
  }

  /**
   * A referral: the child's NS in authority and, in additional, the addresses of its name servers
   * that the zone holds. Glue at or below the cut comes first and is required (RFC 9471): the
   * response is truncated rather than sent without it; addresses elsewhere in the zone follow as
   * optional data, as at the reference servers.
   */
  private Resolution referral(Name cut, List<Record> chain) {
    List<Record> authority = new ArrayList<>(nodes.get(cut).get(Type.NS));
    List<AdditionalTarget> required = new ArrayList<>();
    List<AdditionalTarget> optional = new ArrayList<>();
    Set<Name> seen = new HashSet<>();
    for (Record r : authority) {
      Name target = ((NSRecord) r).getTarget();
      boolean inside = target.subdomain(cut);
      AdditionalTarget t = seen.add(target) ? additionalFor(target, inside) : null;
      if (t != null) {
        (inside ? required : optional).add(t);
      }
    }
    required.addAll(optional);
    return new Resolution(Rcode.NOERROR, !chain.isEmpty(), chain, authority, required, null);
  }

  /**
   * The DNAME of the highest proper ancestor of {@code name} (at or below the apex) that has one.
   */
  private DNAMERecord dnameAbove(Name name) {
    if (!hasDname) {
      return null;
    }
    for (int strip = name.labels() - originLabels; strip >= 1; strip--) {
      ZoneNode n = nodes.get(new Name(name, strip));
      List<Record> set = n == null ? null : n.get(Type.DNAME);
      if (set != null) {
        return (DNAMERecord) set.get(0);
      }
    }
    return null;
  }

  /** The highest delegation point at or above {@code name}, below the apex; null when none. */
  Name cutAbove(Name name) {
    return cuts.highestAbove(name, originLabels, true);
  }

  /** The wildcard node that synthesizes {@code name} (RFC 4592 §4.1), or null. */
  private ZoneNode wildcardFor(Name name) {
    if (wildcards.isEmpty()) {
      return null;
    }
    for (int strip = 1; strip <= name.labels() - originLabels; strip++) {
      Name encloser = new Name(name, strip);
      if (nodes.contains(encloser)) {
        return wildcards.get(encloser);
      }
    }
    return null;
  }
}
