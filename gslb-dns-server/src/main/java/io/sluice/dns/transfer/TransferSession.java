package io.sluice.dns.transfer;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TransferKind;
import io.sluice.core.spi.TransferOutcome;
import java.util.Iterator;
import org.xbill.DNS.DNSOutput;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;

/**
 * The answer to one transfer request, produced one message at a time so a transfer of any size is
 * never built whole: each {@link #next()} packs the following records into one message of about
 * {@link #TARGET_BYTES} and, with a key, signs it, chaining each signature to the previous one (RFC
 * 8945 §5.3.1). Not thread-safe: one connection's event loop drives it.
 */
public final class TransferSession {
  /**
   * The size a message is filled to before the next one starts; a record that would take a message
   * past 64 KiB starts the next one instead.
   */
  static final int TARGET_BYTES = 32 * 1024;

  private static final int MAX_MESSAGE = 65535;

  /** Kept free after the records: the OPT and TSIG records. */
  private static final int ROOM_AFTER_RECORDS = 512;

  private final int id;
  private final Record question;
  private final OPTRecord opt;
  private final Iterator<Record> records;
  private final TSIG signer;
  private final String zone;
  private final TransferKind kind;
  private final TransferOutcome outcome;
  private final GslbMetrics metrics;
  private final byte[] single;

  /** Carries the query's ID, which is all a TSIG record takes from the message it signs. */
  private final Message idHolder;

  private TSIGRecord previous;

  /** A record that did not fit the previous message: the next one starts with it. */
  private Record carry;

  private boolean first = true;
  private boolean finished;
  private int messages;
  private long sent;

  TransferSession(
      Message query,
      Iterator<Record> records,
      TSIG signer,
      String zone,
      TransferKind kind,
      TransferOutcome outcome,
      GslbMetrics metrics) {
    this.id = query.getHeader().getID();
    this.question = query.getQuestion();
    this.opt = query.getOPT() == null ? null : new OPTRecord(1232, 0, 0);
    this.records = records;
    this.signer = signer;
    this.previous = query.getTSIG();
    this.zone = zone;
    this.kind = kind;
    this.outcome = outcome;
    this.metrics = metrics;
    this.single = null;
    this.idHolder = new Message(id);
  }

  private TransferSession(
      byte[] single, String zone, TransferKind kind, TransferOutcome outcome, GslbMetrics metrics) {
    this.id = 0;
    this.question = null;
    this.opt = null;
    this.records = java.util.Collections.emptyIterator();
    this.signer = null;
    this.zone = zone;
    this.kind = kind;
    this.outcome = outcome;
    this.metrics = metrics;
    this.single = single;
    this.idHolder = null;
  }

  /** A session of one ready message: a refusal. */
  static TransferSession single(
      byte[] wire, String zone, TransferKind kind, TransferOutcome outcome, GslbMetrics metrics) {
    return new TransferSession(wire, zone, kind, outcome, metrics);
  }

  /** The zone asked for, as in metrics. */
  public String zone() {
    return zone;
  }

  /** How the transfer ends when every message is sent. */
  public TransferOutcome outcome() {
    return outcome;
  }

  /** Messages produced so far. */
  public int messages() {
    return messages;
  }

  /** The next message, or null once the last one was produced (the outcome is then counted). */
  public byte[] next() {
    if (finished) {
      return null;
    }
    if (!first && carry == null && !records.hasNext()) {
      finished = true;
      metrics.zoneTransfer(zone, kind, outcome);
      return null;
    }
    if (single != null) {
      first = false;
      messages++;
      return single;
    }
    // Encoded here rather than through a dnsjava Message, whose name compression table slows
    // down as a message fills: every message repeats the question (RFC 5936 §2.2.1 allows it), so
    // each owner name is its own labels and a pointer to the zone's name at offset 12; record data
    // is written as dnsjava writes it uncompressed (always valid, RFC 3597 §4).
    DNSOutput out = new DNSOutput(TARGET_BYTES + 1024);
    out.writeU16(id);
    out.writeU16(0x8400); // QR, AA, opcode QUERY, NOERROR
    out.writeU16(question != null ? 1 : 0);
    out.writeU16(0); // ANCOUNT, set below
    out.writeU16(0);
    out.writeU16(opt != null ? 1 : 0);
    if (question != null) {
      question.getName().toWire(out, null);
      out.writeU16(question.getType());
      out.writeU16(question.getDClass());
    }
    int count = 0;
    while ((carry != null || records.hasNext()) && out.current() < TARGET_BYTES) {
      Record r = carry != null ? carry : records.next();
      carry = null;
      byte[] whole = r.toWire(Section.ANSWER);
      if (count > 0 && out.current() + whole.length + ROOM_AFTER_RECORDS > MAX_MESSAGE) {
        carry = r;
        break;
      }
      int rdata = r.getName().length() + 10;
      owner(out, r.getName());
      out.writeByteArray(whole, r.getName().length(), 8); // type, class, TTL
      out.writeU16(whole.length - rdata);
      out.writeByteArray(whole, rdata, whole.length - rdata);
      count++;
    }
    if (opt != null) {
      out.writeByteArray(opt.toWire(Section.ADDITIONAL));
    }
    byte[] wire = out.toByteArray();
    wire[6] = (byte) (count >>> 8);
    wire[7] = (byte) count;
    sent += count;
    if (signer != null) {
      TSIGRecord t = signer.generate(idHolder, wire, Rcode.NOERROR, previous, first);
      previous = t;
      wire = ZoneTransfers.append(wire, t);
    }
    first = false;
    messages++;
    return wire;
  }

  /** Writes {@code name}: its labels below the zone, then a pointer to the question's name. */
  private void owner(DNSOutput out, Name name) {
    // Every record of a zone is at or below its apex (the zone compiler sees to it).
    int own = question == null ? -1 : name.labels() - question.getName().labels();
    if (own < 0) {
      name.toWire(out, null);
      return;
    }
    for (int i = 0; i < own; i++) {
      out.writeByteArray(name.getLabel(i));
    }
    out.writeU16(0xC000 | 12);
  }

  /** Counts a transfer whose connection closed before its end. */
  public void aborted() {
    if (!finished) {
      finished = true;
      metrics.zoneTransfer(zone, kind, TransferOutcome.ABORTED);
    }
  }

  /** Records sent so far. */
  public long recordsSent() {
    return sent;
  }
}
