package io.sluice.dns.transfer;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TransferKind;
import io.sluice.core.spi.TransferOutcome;
import io.sluice.core.state.Snapshot;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.ExtendedErrorCodeOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;

/**
 * Answers zone transfer requests (AXFR, RFC 5936; IXFR, RFC 1995) and signs the answers of other
 * TSIG-signed queries (a secondary's SOA check). The order of checks: a signature that does not
 * verify gets NOTAUTH with the TSIG error (BADKEY, BADSIG, BADTIME; RFC 8945 §5.2) and no data;
 * then the zone must be offered, the client in an allowed network, the key the zone's, and every
 * GSLB service of the zone must have a fallback. Refusals are logged and counted.
 */
public final class ZoneTransfers {
  private static final Logger log = LoggerFactory.getLogger(ZoneTransfers.class);

  private ZoneTransfers() {}

  /** Whether {@code len} bytes of {@code in} are a query (opcode QUERY) for AXFR or IXFR. */
  public static boolean isTransfer(byte[] in, int len) {
    if (len < 17 || (in[2] & 0x80) != 0 || ((in[2] >> 3) & 0x0f) != Opcode.QUERY) {
      return false;
    }
    if (((in[4] & 0xff) << 8 | (in[5] & 0xff)) != 1) {
      return false;
    }
    int pos = 12;
    while (pos < len) {
      int l = in[pos] & 0xff;
      if (l == 0) {
        pos++;
        break;
      }
      if ((l & 0xc0) != 0) {
        return false;
      }
      pos += l + 1;
    }
    if (pos + 4 > len) {
      return false;
    }
    int qtype = (in[pos] & 0xff) << 8 | (in[pos + 1] & 0xff);
    return qtype == Type.AXFR || qtype == Type.IXFR;
  }

  /**
   * The answer to the transfer request in {@code len} bytes of {@code in} from {@code client}, read
   * against {@code snapshot}'s zones.
   */
  public static TransferSession start(
      Snapshot snapshot, byte[] in, int len, InetAddress client, GslbMetrics metrics) {
    byte[] wire = Arrays.copyOf(in, len);
    Message q;
    try {
      q = new Message(wire);
    } catch (IOException e) {
      return TransferSession.single(
          formerr(wire), "", TransferKind.AXFR, TransferOutcome.REFUSED, metrics);
    }
    Record question = q.getQuestion();
    TransferKind kind = question.getType() == Type.IXFR ? TransferKind.IXFR : TransferKind.AXFR;
    Name qname = question.getName();
    TransferZones all = snapshot == null ? null : snapshot.artifacts().get(TransferZones.class);
    if (all == null) {
      all = TransferZones.EMPTY;
    }
    TransferZone zone = all.zone(qname);
    String label = zone == null ? "" : zone.origin().toString().toLowerCase(java.util.Locale.ROOT);
    String who = client.getHostAddress();
    TSIGRecord qt = q.getTSIG();
    TsigKey signedWith = null;
    if (qt != null) {
      TsigKey key = all.key(qt.getName());
      int error = key == null ? Rcode.BADKEY : key.tsig().verify(q, wire, null);
      if (error != Rcode.NOERROR) {
        refusedLog(
            who, kind, qname, "TSIG " + Rcode.TSIGstring(error) + " for key " + qt.getName());
        return TransferSession.single(
            notauth(q, qt, error, null, key), label, kind, TransferOutcome.NOTAUTH, metrics);
      }
      signedWith = key;
    }
    if (zone == null || question.getDClass() != DClass.IN) {
      String why = "zone transfer of " + qname + " is not offered";
      refusedLog(who, kind, qname, why);
      return TransferSession.single(
          refused(q, signedWith, why), label, kind, TransferOutcome.REFUSED, metrics);
    }
    if (!zone.allows(client.getAddress())) {
      String why = "client " + who + " is not in transfer.allow";
      refusedLog(who, kind, qname, why);
      return TransferSession.single(
          refused(q, signedWith, why), label, kind, TransferOutcome.REFUSED, metrics);
    }
    if (zone.key() != null
        && (signedWith == null || !signedWith.name().equals(zone.key().name()))) {
      String why =
          "transfer of " + zone.origin() + " must be signed with TSIG key " + zone.key().name();
      refusedLog(who, kind, qname, why);
      byte[] out =
          qt == null ? notauth(q, null, 0, why, null) : notauth(q, qt, Rcode.BADKEY, why, null);
      return TransferSession.single(out, label, kind, TransferOutcome.NOTAUTH, metrics);
    }
    if (zone.refusal() != null) {
      refusedLog(who, kind, qname, zone.refusal());
      return TransferSession.single(
          refused(q, signedWith, zone.refusal()), label, kind, TransferOutcome.REFUSED, metrics);
    }
    SOARecord soa = zone.soa();
    TSIG signer = signedWith == null ? null : signedWith.tsig();
    if (kind == TransferKind.IXFR) {
      Long have = clientSerial(q);
      if (have != null && !TransferZones.newer(soa.getSerial(), have)) {
        log.info("IXFR of {} to {}: serial {} is current", zone.origin(), who, have);
        return new TransferSession(
            q,
            List.<Record>of(soa).iterator(),
            signer,
            label,
            kind,
            TransferOutcome.UP_TO_DATE,
            metrics);
      }
      List<ZoneDiff> chain = have == null ? null : chainFrom(zone.history(), have);
      if (chain != null) {
        log.info(
            "IXFR of {} to {}: serial {} -> {} in {} step(s)",
            zone.origin(),
            who,
            have,
            soa.getSerial(),
            chain.size());
        return new TransferSession(
            q, incremental(soa, chain), signer, label, kind, TransferOutcome.INCREMENTAL, metrics);
      }
    }
    log.info("{} of {} to {}: full zone, serial {}", kind, zone.origin(), who, soa.getSerial());
    return new TransferSession(
        q, full(soa, zone), signer, label, kind, TransferOutcome.FULL, metrics);
  }

  private static void refusedLog(String who, TransferKind kind, Name qname, String why) {
    log.warn("refused {} of {} to {}: {}", kind, qname, who, why);
  }

  /** The serial in the IXFR request's authority SOA (RFC 1995 §3), or null when absent. */
  private static Long clientSerial(Message q) {
    for (Record r : q.getSection(Section.AUTHORITY)) {
      if (r instanceof SOARecord s) {
        return s.getSerial();
      }
    }
    return null;
  }

  /** The kept differences leading from {@code serial} to the current version, or null. */
  private static List<ZoneDiff> chainFrom(List<ZoneDiff> history, long serial) {
    for (int i = 0; i < history.size(); i++) {
      if (history.get(i).from().getSerial() == serial) {
        return history.subList(i, history.size());
      }
    }
    return null;
  }

  /** SOA, every other record, SOA (RFC 5936 §2.2). */
  private static Iterator<Record> full(SOARecord soa, TransferZone zone) {
    Iterator<Record> body = zone.recordsWithSoa();
    return new Iterator<>() {
      private boolean last;

      @Override
      public boolean hasNext() {
        return body.hasNext() || !last;
      }

      @Override
      public Record next() {
        if (body.hasNext()) {
          return body.next();
        }
        if (last) {
          throw new java.util.NoSuchElementException();
        }
        last = true;
        return soa;
      }
    };
  }

  private static Iterator<Record> incremental(SOARecord soa, List<ZoneDiff> chain) {
    List<Record> out = new ArrayList<>();
    out.add(soa);
    for (ZoneDiff d : chain) {
      out.add(d.from());
      out.addAll(d.deleted());
      out.add(d.to());
      out.addAll(d.added());
    }
    out.add(soa);
    return out.iterator();
  }

  /**
   * {@code out}, the answer to a TSIG-signed query in {@code len} bytes of {@code in}, signed with
   * the query's key; NOTAUTH with the TSIG error instead when the query's signature does not
   * verify. Answers unchanged when no key is configured.
   */
  public static byte[] sign(Snapshot snapshot, byte[] in, int len, byte[] out) {
    TransferZones all = snapshot == null ? null : snapshot.artifacts().get(TransferZones.class);
    if (all == null || !all.hasKeys()) {
      return out;
    }
    byte[] wire = Arrays.copyOf(in, len);
    Message q;
    try {
      q = new Message(wire);
    } catch (IOException e) {
      return out;
    }
    TSIGRecord qt = q.getTSIG();
    if (qt == null) {
      return out;
    }
    TsigKey key = all.key(qt.getName());
    int error = key == null ? Rcode.BADKEY : key.tsig().verify(q, wire, null);
    if (error != Rcode.NOERROR) {
      return notauth(q, qt, error, null, key);
    }
    return append(out, key.tsig().generate(q, out, Rcode.NOERROR, qt, true));
  }

  /** {@code wire} with {@code tsig} appended as its last additional record. */
  static byte[] append(byte[] wire, TSIGRecord tsig) {
    byte[] t = tsig.toWire(Section.ADDITIONAL);
    byte[] out = Arrays.copyOf(wire, wire.length + t.length);
    System.arraycopy(t, 0, out, wire.length, t.length);
    int ar = ((out[10] & 0xff) << 8 | (out[11] & 0xff)) + 1;
    out[10] = (byte) (ar >>> 8);
    out[11] = (byte) ar;
    return out;
  }

  private static Message reply(Message q, int rcode, String ede) {
    Message r = new Message(q.getHeader().getID());
    r.getHeader().setFlag(Flags.QR);
    r.getHeader().setRcode(rcode);
    if (q.getQuestion() != null) {
      r.addRecord(q.getQuestion(), Section.QUESTION);
    }
    if (q.getOPT() != null) {
      List<EDNSOption> options =
          ede == null
              ? List.of()
              : List.of(new ExtendedErrorCodeOption(ExtendedErrorCodeOption.PROHIBITED, ede));
      r.addRecord(new OPTRecord(1232, 0, 0, 0, options), Section.ADDITIONAL);
    }
    return r;
  }

  private static byte[] refused(Message q, TsigKey signedWith, String why) {
    Message r = reply(q, Rcode.REFUSED, why);
    byte[] wire = r.toWire();
    return signedWith == null
        ? wire
        : append(wire, signedWith.tsig().generate(r, wire, Rcode.NOERROR, q.getTSIG(), true));
  }

  /**
   * NOTAUTH (RFC 8945 §5.2): with the TSIG error {@code error} in a TSIG record named as the
   * query's when the query was signed (unsigned, except BADTIME, which {@code key} signs), else
   * with an EDE saying which key is needed.
   */
  private static byte[] notauth(Message q, TSIGRecord qt, int error, String why, TsigKey key) {
    Message r = reply(q, Rcode.NOTAUTH, why);
    byte[] wire = r.toWire();
    if (qt == null) {
      return wire;
    }
    if (error == Rcode.BADTIME && key != null) {
      return append(wire, key.tsig().generate(r, wire, error, qt, true));
    }
    Name alg = qt.getAlgorithm();
    TSIG blank;
    try {
      blank = new TSIG(alg, qt.getName(), new byte[32]);
    } catch (IllegalArgumentException e) {
      blank = new TSIG(TSIG.HMAC_SHA256, qt.getName(), new byte[32]);
    }
    return append(wire, blank.generate(r, wire, error, qt, true));
  }

  private static byte[] formerr(byte[] query) {
    byte[] out = Arrays.copyOf(query, 12);
    out[2] = (byte) (0x80 | (query[2] & 0x78));
    out[3] = (byte) Rcode.FORMERR;
    for (int i = 4; i < 12; i++) {
      out[i] = 0;
    }
    return out;
  }
}
