package io.sluice.dns.transfer;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TransferKind;
import io.sluice.core.spi.TransferOutcome;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;

/**
 * The answer to one transfer request, produced one message at a time so a transfer of any size is
 * never built whole: each {@link #next()} packs the following records into one message of about
 * {@link #TARGET_BYTES} and, with a key, signs it, chaining each signature to the previous one (RFC
 * 8945 §5.3.1). Not thread-safe: one connection's event loop drives it.
 */
public final class TransferSession {
  /** The size a message is filled to before the next one starts; well below the 64 KiB limit. */
  static final int TARGET_BYTES = 32 * 1024;

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
  private TSIGRecord previous;
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
    if (!first && !records.hasNext()) {
      finished = true;
      metrics.zoneTransfer(zone, kind, outcome);
      return null;
    }
    if (single != null) {
      first = false;
      messages++;
      return single;
    }
    Message m = new Message(id);
    m.getHeader().setFlag(Flags.QR);
    m.getHeader().setFlag(Flags.AA);
    m.getHeader().setRcode(Rcode.NOERROR);
    if (first && question != null) {
      m.addRecord(question, Section.QUESTION);
    }
    int bytes = 12;
    List<Record> batch = new ArrayList<>();
    while (records.hasNext() && bytes < TARGET_BYTES) {
      Record r = records.next();
      batch.add(r);
      bytes += r.getName().length() + 10 + rdataLength(r);
    }
    for (Record r : batch) {
      m.addRecord(r, Section.ANSWER);
    }
    sent += batch.size();
    return finish(m);
  }

  /** The length of {@code r}'s data, uncompressed: an upper bound of what it takes in a message. */
  private static int rdataLength(Record r) {
    return switch (r.getType()) {
      case Type.A -> 4;
      case Type.AAAA -> 16;
      default -> r.rdataToWireCanonical().length;
    };
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

  private byte[] finish(Message m) {
    if (opt != null) {
      m.addRecord(opt, Section.ADDITIONAL);
    }
    byte[] wire = m.toWire();
    if (signer != null) {
      TSIGRecord t = signer.generate(m, wire, Rcode.NOERROR, previous, first);
      previous = t;
      wire = ZoneTransfers.append(wire, t);
    }
    first = false;
    messages++;
    return wire;
  }
}
