package io.sluice.dns.response;

import io.sluice.dns.zone.AdditionalTarget;
import io.sluice.dns.zone.Resolution;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.DNSOutput;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;
import org.xbill.DNS.WireParseException;

/**
 * Encodes a {@link Resolution} once into a response {@link Template}: ID 0, the question written
 * with the lower-case name at offset 12 and no OPT record. Because a case variant of a name has the
 * same length, compression pointers into the question stay valid when {@link WireSplicer} copies
 * the query's own spelling over it. Additional data is encoded RRset by RRset, each owner a pointer
 * to where the target's name already appears (as the reference servers compress it), so that any
 * subset of it can be sent.
 */
final class AnswerEncoder {
  /** Compression pointers reach only the first 16 KiB of a message (RFC 1035 §4.1.4). */
  private static final int POINTER_LIMIT = 0x4000;

  private static final int[] NO_CUTS = {};

  private AnswerEncoder() {}

  static Template encode(Name qname, int qtype, int qclass, Resolution r) {
    Message m = new Message(0);
    m.getHeader().setFlag(Flags.QR);
    if (r.authoritative()) {
      m.getHeader().setFlag(Flags.AA);
    }
    m.getHeader().setRcode(r.rcode());
    m.addRecord(Record.newRecord(qname.canonicalize(), qtype, qclass), Section.QUESTION);
    for (Record rec : r.answer()) {
      m.addRecord(rec, Section.ANSWER);
    }
    for (Record rec : r.authority()) {
      m.addRecord(rec, Section.AUTHORITY);
    }
    byte[] required = m.toWire();
    int[] cuts = cuts(required, r);
    if (r.additional().isEmpty()) {
      return Template.of(required, cuts, List.of());
    }
    Map<Name, Integer> offsets = nameOffsets(required);
    List<Template.Extra> extras = new ArrayList<>();
    int group = 0;
    for (AdditionalTarget t : r.additional()) {
      byte[] owner = owner(t.target(), offsets);
      if (t.isService()) {
        extras.add(new Template.Extra.Service(owner, t.service(), group, t.required()));
      } else {
        for (List<Record> set : List.of(t.a(), t.aaaa())) {
          if (!set.isEmpty()) {
            byte[] bytes = rrset(owner, set);
            extras.add(new Template.Extra.Fixed(bytes, set.size(), group, t.required()));
          }
        }
      }
      group++;
    }
    return Template.of(required, cuts, extras);
  }

  /**
   * What {@link #encode} makes of an authoritative answer holding only {@code records}, one RRset
   * of {@code qname} whose data names no other name (A, AAAA, TXT), written directly: the question
   * with the lower-case name, then each record with its owner a pointer to it. It costs a fraction
   * of building a dnsjava message, which matters when a random-name load asks most names once.
   */
  static Template plain(Name qname, int qtype, List<Record> records) {
    byte[] name = qname.toWireCanonical();
    int length = 12 + name.length + 4;
    byte[][] rdata = new byte[records.size()][];
    for (int i = 0; i < rdata.length; i++) {
      rdata[i] = records.get(i).rdataToWireCanonical();
      length += 12 + rdata[i].length;
    }
    DNSOutput out = new DNSOutput(length);
    out.writeU16(0);
    out.writeU16(0x8400); // QR and AA, NOERROR; RD and CD are copied from the query later
    out.writeU16(1);
    out.writeU16(rdata.length);
    out.writeU16(0);
    out.writeU16(0);
    out.writeByteArray(name);
    out.writeU16(qtype);
    out.writeU16(DClass.IN);
    for (int i = 0; i < rdata.length; i++) {
      Record r = records.get(i);
      out.writeU16(0xC000 | 12);
      out.writeU16(r.getType());
      out.writeU16(r.getDClass());
      out.writeU32(r.getTTL());
      out.writeU16(rdata[i].length);
      out.writeByteArray(rdata[i]);
    }
    return Template.of(out.toByteArray());
  }

  /**
   * The offsets after the question and after each whole RRset of the answer and authority sections,
   * with the section counts there, as (end, ANCOUNT, NSCOUNT) triples.
   */
  private static int[] cuts(byte[] w, Resolution r) {
    List<Record> an = r.answer();
    List<Record> ns = r.authority();
    int[] out = new int[3 * (1 + an.size() + ns.size())];
    int n = 0;
    int o = skipName(w, 12) + 4;
    out[n++] = o;
    out[n++] = 0;
    out[n++] = 0;
    for (int i = 0; i < an.size() + ns.size(); i++) {
      o = skipName(w, o);
      o += 10 + u16(w, o + 8);
      boolean inAnswer = i < an.size();
      Record rec = inAnswer ? an.get(i) : ns.get(i - an.size());
      Record next =
          i + 1 < an.size()
              ? an.get(i + 1)
              : i + 1 == an.size() ? null : nextIn(ns, i + 1 - an.size());
      if (next == null || !sameRrset(rec, next)) {
        out[n++] = o;
        out[n++] = inAnswer ? i + 1 : an.size();
        out[n++] = inAnswer ? 0 : i + 1 - an.size();
      }
    }
    // With one RRset the only cut is after the question, which the splicer makes anyway: most
    // templates keep no cut points, so a large zone costs no memory for them.
    return n <= 6 ? NO_CUTS : Arrays.copyOf(out, n);
  }

  private static Record nextIn(List<Record> records, int i) {
    return i < records.size() ? records.get(i) : null;
  }

  /**
   * Whether {@code b} continues the RRset of {@code a}: same owner and type, or the signatures that
   * cover it, so that a truncated answer never holds an RRset without its signatures.
   */
  private static boolean sameRrset(Record a, Record b) {
    return covered(a) == covered(b) && a.getName().equals(b.getName());
  }

  private static int covered(Record r) {
    return r instanceof RRSIGRecord sig ? sig.getTypeCovered() : r.getType();
  }

  /**
   * Writes to {@code out} the A or AAAA records of {@code owner} (encoded) for the planner
   * addresses of length 4 or 16; returns how many.
   */
  static int addresses(DNSOutput out, byte[] owner, int type, long ttl, List<byte[]> addresses) {
    int want = type == Type.AAAA ? 16 : 4;
    int count = 0;
    for (byte[] a : addresses) {
      if (a.length == want) {
        writeRecord(out, owner, type, DClass.IN, ttl, a);
        count++;
      }
    }
    return count;
  }

  private static byte[] rrset(byte[] owner, List<Record> records) {
    DNSOutput out = new DNSOutput();
    for (Record rec : records) {
      writeRecord(
          out, owner, rec.getType(), rec.getDClass(), rec.getTTL(), rec.rdataToWireCanonical());
    }
    return out.toByteArray();
  }

  private static void writeRecord(
      DNSOutput out, byte[] owner, int type, int dclass, long ttl, byte[] rdata) {
    out.writeByteArray(owner);
    out.writeU16(type);
    out.writeU16(dclass);
    out.writeU32(ttl);
    out.writeU16(rdata.length);
    out.writeByteArray(rdata);
  }

  /** A pointer to {@code name} in the required part, or the name in full when it is not there. */
  private static byte[] owner(Name name, Map<Name, Integer> offsets) {
    Integer at = offsets.get(name);
    if (at != null) {
      return new byte[] {(byte) (0xC0 | at >>> 8), (byte) (int) at};
    }
    DNSOutput out = new DNSOutput();
    name.toWire(out, null);
    return out.toByteArray();
  }

  /**
   * Where each name of the question and of the answer and authority records (owners and the targets
   * of NS, CNAME, DNAME, PTR, MX and SRV) is spelled out, following pointers to the labels.
   */
  private static Map<Name, Integer> nameOffsets(byte[] w) {
    Map<Name, Integer> offsets = new HashMap<>();
    try {
      note(w, 12, offsets);
      int o = skipName(w, 12) + 4;
      int records = u16(w, 6) + u16(w, 8);
      for (int i = 0; i < records; i++) {
        note(w, o, offsets);
        o = skipName(w, o);
        int type = u16(w, o);
        int rdata = o + 10;
        int at =
            switch (type) {
              case Type.NS, Type.CNAME, Type.DNAME, Type.PTR -> 0;
              case Type.MX -> 2;
              case Type.SRV -> 6;
              default -> -1;
            };
        if (at >= 0) {
          note(w, rdata + at, offsets);
        }
        o = rdata + u16(w, o + 8);
      }
    } catch (WireParseException e) {
      throw new IllegalStateException("unreadable template", e);
    }
    return offsets;
  }

  private static void note(byte[] w, int at, Map<Name, Integer> offsets) throws WireParseException {
    while ((w[at] & 0xC0) == 0xC0) {
      at = (w[at] & 0x3F) << 8 | (w[at + 1] & 0xff);
    }
    if (at < POINTER_LIMIT) {
      DNSInput in = new DNSInput(w);
      in.jump(at);
      offsets.putIfAbsent(new Name(in), at);
    }
  }

  private static int skipName(byte[] w, int o) {
    while (true) {
      int len = w[o] & 0xff;
      if (len == 0) {
        return o + 1;
      }
      if ((len & 0xC0) == 0xC0) {
        return o + 2;
      }
      o += len + 1;
    }
  }

  /** The unsigned 16-bit value at {@code o} of {@code w}. */
  static int u16(byte[] w, int o) {
    return (w[o] & 0xff) << 8 | (w[o + 1] & 0xff);
  }
}
