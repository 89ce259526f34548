package io.sluice.dns.transfer;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;

/**
 * A fingerprint of a zone's content, everything but the SOA serial: the sum of each record's
 * SHA-256 (first 16 bytes, TTL included), so it needs no sorting of a big zone. Two versions with
 * the same fingerprint serve the same data; the serial rule keeps their serial.
 */
record ZoneDigest(long high, long low, long count) {

  /** The fingerprint of {@code zone}'s RRsets as transferred, its SOA among them. */
  static ZoneDigest of(TransferZone zone) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    long high = 0;
    long low = 0;
    long count = 0;
    for (Iterator<Record> it = zone.recordsWithSoa(); it.hasNext(); ) {
      Record r = it.next();
      Record content = r instanceof SOARecord soa ? withoutSerial(soa) : r;
      ByteBuffer h = ByteBuffer.wrap(sha.digest(content.toWireCanonical()));
      high += h.getLong();
      low += h.getLong();
      count++;
    }
    return new ZoneDigest(high, low, count);
  }

  private static SOARecord withoutSerial(SOARecord s) {
    return new SOARecord(
        s.getName(),
        s.getDClass(),
        s.getTTL(),
        s.getHost(),
        s.getAdmin(),
        0,
        s.getRefresh(),
        s.getRetry(),
        s.getExpire(),
        s.getMinimum());
  }

  /** The text kept in the serials file. */
  String text() {
    HexFormat hex = HexFormat.of();
    return hex.toHexDigits(high) + hex.toHexDigits(low) + "/" + count;
  }

  /** Reads {@link #text()}; null when it is not one. */
  static ZoneDigest parse(String text) {
    if (text == null || !text.matches("[0-9a-f]{32}/\\d+")) {
      return null;
    }
    return new ZoneDigest(
        HexFormat.fromHexDigitsToLong(text.substring(0, 16)),
        HexFormat.fromHexDigitsToLong(text.substring(16, 32)),
        Long.parseLong(text.substring(33)));
  }
}
