package io.sluice.dns.response;

import io.sluice.dns.zone.Resolution;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Encodes a {@link Resolution} once into a response template: ID 0, the question written with the
 * lower-case name at offset 12 and no OPT record. Because a case variant of a name has the same
 * length, compression pointers into the question stay valid when {@link WireSplicer} copies the
 * query's own spelling over it.
 */
final class AnswerEncoder {
  private AnswerEncoder() {}

  static byte[] encode(Name qname, int qtype, int qclass, Resolution r) {
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
    for (Record rec : r.additional()) {
      m.addRecord(rec, Section.ADDITIONAL);
    }
    return m.toWire();
  }
}
