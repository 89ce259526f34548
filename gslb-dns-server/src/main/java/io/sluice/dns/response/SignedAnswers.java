package io.sluice.dns.response;

import io.sluice.dns.dnssec.SignedZone;
import io.sluice.dns.zone.AdditionalTarget;
import io.sluice.dns.zone.Resolution;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.NSECRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Encodes the answers of signed zones to queries with the DO bit: the records of the unsigned
 * answer, each RRset followed by its signatures, and the proofs a validator needs. Denial of
 * existence is compact (RFC 9824): a name that does not exist gets NOERROR and an NSEC at the name
 * whose next name is {@code \000.name} and whose types are NXNAME, RRSIG and NSEC; a type a name
 * lacks gets an NSEC at the name listing its real types. Wildcard answers keep the wildcard's
 * signatures (their label count tells the validator a wildcard was used) and carry a minimally
 * covering NSEC proving the name asked for does not exist. A referral carries the signed DS, or a
 * signed NSEC at the cut proving there is none. Static signatures are only looked up here, never
 * made; NSEC records are signed online within the zone's budget, and null is returned when it is
 * spent.
 */
final class SignedAnswers {
  private static final byte[] ZERO_LABEL = {0};

  private SignedAnswers() {}

  /**
   * The signed template of {@code r}, the zone's answer to ({@code qname}, {@code qtype}); {@code
   * service} is the GSLB service the final name is bound to (its A and AAAA exist) or null, and
   * {@code serviceSigs} the signatures of the planner's address RRset when the answer holds one.
   */
  static Template encode(
      SignedZone sz,
      Name qname,
      int qtype,
      Resolution r,
      String service,
      RRSIGRecord[] serviceSigs) {
    Zone zone = sz.zone();
    List<Record> answer = new ArrayList<>();
    List<Record> authority = new ArrayList<>();
    List<Name> expanded = new ArrayList<>();
    List<Record> in = r.answer();
    for (int i = 0; i < in.size(); ) {
      int j = i + 1;
      Record first = in.get(i);
      while (j < in.size() && sameSet(first, in.get(j))) {
        j++;
      }
      answer.addAll(in.subList(i, j));
      boolean dnameSynthesized =
          first.getType() == Type.CNAME && i > 0 && in.get(i - 1).getType() == Type.DNAME;
      if (serviceSigs != null && j == in.size() && isAddress(first.getType())) {
        add(answer, serviceSigs, first.getName(), first.getTTL());
      } else if (!dnameSynthesized) {
        Name owner = first.getName();
        Name wild = zone.wildcardOwner(owner);
        add(
            answer,
            sz.signatures(wild != null ? wild : owner, first.getType()),
            owner,
            first.getTTL());
        if (wild != null) {
          expanded.add(owner);
        }
      }
      i = j;
    }
    Name last = finalName(qname, in);
    int rcode = r.rcode();
    if (rcode == Rcode.NXDOMAIN || (rcode == Rcode.NOERROR && isNodata(r, in, last))) {
      Record soa = r.authority().get(0);
      authority.add(soa);
      add(authority, sz.signatures(zone.origin(), Type.SOA), soa.getName(), soa.getTTL());
      SignedZone.SignedNsec nsec =
          rcode == Rcode.NXDOMAIN
              ? sz.nsec(last, next(last), new int[] {Type.RRSIG, Type.NSEC, SignedZone.NXNAME})
              : sz.nsec(last, next(last), typesAt(zone, last, service, qtype));
      if (nsec == null) {
        return null;
      }
      addNsec(authority, nsec);
      rcode = Rcode.NOERROR;
    } else {
      for (Record rec : r.authority()) {
        authority.add(rec);
      }
      if (!r.authority().isEmpty() && r.authority().get(0).getType() == Type.NS) {
        if (!referral(sz, authority, r.authority().get(0).getName())) {
          return null;
        }
      }
    }
    for (Name owner : expanded) {
      SignedZone.SignedNsec cover = covering(sz, owner);
      if (cover == null) {
        return null;
      }
      addNsec(authority, cover);
    }
    List<AdditionalTarget> additional = new ArrayList<>(r.additional().size());
    for (AdditionalTarget t : r.additional()) {
      additional.add(signedTarget(sz, t));
    }
    Resolution signed =
        new Resolution(rcode, r.authoritative(), answer, authority, additional, r.service());
    return AnswerEncoder.encode(qname, qtype, DClass.IN, signed);
  }

  private static boolean isAddress(int type) {
    return type == Type.A || type == Type.AAAA || type == Type.CNAME;
  }

  private static boolean sameSet(Record a, Record b) {
    return a.getType() == b.getType() && a.getName().equals(b.getName());
  }

  /** The name the answer ends at: the last CNAME's target, else the question name. */
  private static Name finalName(Name qname, List<Record> answer) {
    Name last = qname;
    for (Record r : answer) {
      if (r.getType() == Type.CNAME && r.getName().equals(last)) {
        last = r.getAdditionalName();
      }
    }
    return last;
  }

  private static boolean isNodata(Resolution r, List<Record> answer, Name last) {
    if (r.authority().isEmpty() || r.authority().get(0).getType() != Type.SOA) {
      return false;
    }
    for (Record rec : answer) {
      if (rec.getName().equals(last)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The types an NSEC at {@code name} lists: the name's own (a wildcard's when the wildcard answers
   * for it), plus A and AAAA at a GSLB service name except the asked type, which its answer lacks
   * now; RRSIG and NSEC always.
   */
  private static int[] typesAt(Zone zone, Name name, String service, int qtype) {
    TreeSet<Integer> types = new TreeSet<>(List.of(Type.RRSIG, Type.NSEC));
    ZoneNode node = zone.node(name);
    if (node == null) {
      Name wild = zone.wildcardOwner(name);
      node = wild == null ? null : zone.node(wild);
    }
    if (node != null) {
      for (int t : node.types()) {
        types.add(t);
      }
      if (node.service() != null) {
        types.add(Type.A);
        types.add(Type.AAAA);
      }
    } else if (service != null) {
      types.add(Type.A);
      types.add(Type.AAAA);
    }
    types.remove(qtype);
    return types.stream().mapToInt(Integer::intValue).toArray();
  }

  /** {@code \000.name}, the next name of a compact-denial NSEC; the name itself when too long. */
  private static Name next(Name name) {
    try {
      return child(ZERO_LABEL, name);
    } catch (Exception e) {
      return name;
    }
  }

  /** Adds the DS RRset of the cut and its signatures, or a signed NSEC proving there is none. */
  private static boolean referral(SignedZone sz, List<Record> authority, Name cut) {
    ZoneNode node = sz.zone().node(cut);
    Resolution ds = sz.zone().resolve(cut, Type.DS);
    if (node != null && node.has(Type.DS)) {
      for (Record rec : ds.answer()) {
        authority.add(rec);
      }
      Record first = ds.answer().get(0);
      add(authority, sz.signatures(cut, Type.DS), cut, first.getTTL());
      return true;
    }
    SignedZone.SignedNsec nsec =
        sz.nsec(cut, next(cut), new int[] {Type.NS, Type.RRSIG, Type.NSEC});
    if (nsec == null) {
      return false;
    }
    addNsec(authority, nsec);
    return true;
  }

  /**
   * A minimally covering NSEC (RFC 4470 style) for a name a wildcard answered: it covers the next
   * closer name (the closest encloser plus one label of {@code name}) and only that name's
   * neighbourhood, so it denies nothing that exists. Its owner shares only the closest encloser
   * with {@code name}, which the validator checks against the signature's label count.
   */
  private static SignedZone.SignedNsec covering(SignedZone sz, Name name) {
    Zone zone = sz.zone();
    Name encloser = zone.closestEncloser(name);
    Name nextCloser = new Name(name, name.labels() - encloser.labels() - 1);
    byte[] label = lower(nextCloser.getLabel(0));
    Name owner = encloser;
    Name next = encloser;
    try {
      byte[] after = Arrays.copyOf(label, label.length + 1);
      next = child(after, encloser);
      byte[] before = predecessor(label, 255 - encloser.length() - 2);
      if (before != null) {
        owner = child(before, encloser);
      }
    } catch (Exception e) {
      // Names too long for the neighbours: the encloser is both ends, which covers too much but
      // stays valid.
    }
    int[] types =
        owner.equals(encloser)
            ? typesAt(zone, encloser, null, -1)
            : new int[] {Type.RRSIG, Type.NSEC};
    return sz.nsec(owner, next, types);
  }

  /** A label sorting just before {@code label}, at most {@code room} bytes long, or null. */
  private static byte[] predecessor(byte[] label, int room) {
    int n = label.length;
    int last = label[n - 1] & 0xff;
    if (last == 0) {
      return n == 1 ? null : Arrays.copyOf(label, n - 1);
    }
    int length = Math.min(63, Math.max(n, room));
    byte[] out = new byte[length];
    System.arraycopy(label, 0, out, 0, n);
    int dec = last - 1;
    // Canonical order compares lower case: an upper-case letter would sort after the label.
    out[n - 1] = (byte) (dec >= 'A' && dec <= 'Z' ? 'A' - 1 : dec);
    Arrays.fill(out, n, length, (byte) 0xff);
    return out;
  }

  private static byte[] lower(byte[] wireLabel) {
    byte[] out = Arrays.copyOfRange(wireLabel, 1, wireLabel.length);
    for (int i = 0; i < out.length; i++) {
      if (out[i] >= 'A' && out[i] <= 'Z') {
        out[i] = (byte) (out[i] + 32);
      }
    }
    return out;
  }

  /** The name of {@code label} (raw bytes) below {@code parent}. */
  private static Name child(byte[] label, Name parent) throws IOException {
    byte[] rest = parent.toWireCanonical();
    byte[] wire = new byte[label.length + 1 + rest.length];
    wire[0] = (byte) label.length;
    System.arraycopy(label, 0, wire, 1, label.length);
    System.arraycopy(rest, 0, wire, label.length + 1, rest.length);
    return new Name(new DNSInput(wire));
  }

  /** The target's address RRsets with their signatures when the zone is authoritative for them. */
  private static AdditionalTarget signedTarget(SignedZone sz, AdditionalTarget t) {
    if (t.isService() || sz.zone().isDelegated(t.target())) {
      return t;
    }
    Name wild = sz.zone().wildcardOwner(t.target());
    Name source = wild != null ? wild : t.target();
    return new AdditionalTarget(
        t.target(),
        withSigs(sz, t.a(), source, t.target(), Type.A),
        withSigs(sz, t.aaaa(), source, t.target(), Type.AAAA),
        t.service(),
        t.required());
  }

  private static List<Record> withSigs(
      SignedZone sz, List<Record> set, Name source, Name owner, int type) {
    if (set.isEmpty()) {
      return set;
    }
    List<Record> out = new ArrayList<>(set);
    add(out, sz.signatures(source, type), owner, set.get(0).getTTL());
    return out;
  }

  private static void addNsec(List<Record> out, SignedZone.SignedNsec nsec) {
    NSECRecord n = nsec.nsec();
    out.add(n);
    add(out, nsec.sigs(), n.getName(), n.getTTL());
  }

  /**
   * Adds {@code sigs} owned by {@code owner} with the TTL the RRset they cover is served with; the
   * rdata (the wildcard label count included) is kept as signed.
   */
  static void add(List<Record> out, RRSIGRecord[] sigs, Name owner, long ttl) {
    for (RRSIGRecord s : sigs) {
      out.add(
          s.getTTL() == ttl && s.getName().equals(owner)
              ? s
              : Record.newRecord(owner, Type.RRSIG, DClass.IN, ttl, s.rdataToWireCanonical()));
    }
  }
}
