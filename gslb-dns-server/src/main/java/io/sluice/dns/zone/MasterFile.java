package io.sluice.dns.zone;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;

/**
 * The records a zone read from its master file, with what they were read from: the file's path and
 * content digest, the origin and the default TTL. A reload whose file has the same content reuses
 * them instead of parsing the file again, so an unchanged million-record file costs neither a
 * second parse nor a second copy of its records beside the zone still served. Records are
 * immutable, so the old and the new zone can share them. Kept only for a file read without a
 * problem.
 */
final class MasterFile {
  /** Bytes read from a file per call: small enough for the runtime's cached per-thread buffers. */
  private static final int READ_STEP = 64 * 1024;

  /** The largest array the runtime allocates. */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

  private final Path path;
  private final byte[] digest;
  private final Name origin;
  private final long ttl;
  private final Record[] records;
  private final long[] lineKeys;
  private final SOARecord soa;

  private MasterFile(
      Path path,
      byte[] digest,
      Name origin,
      long ttl,
      Record[] records,
      long[] lineKeys,
      SOARecord soa) {
    this.path = path;
    this.digest = digest;
    this.origin = origin;
    this.ttl = ttl;
    this.records = records;
    this.lineKeys = lineKeys;
    this.soa = soa;
  }

  /**
   * What was read from {@code path} (whose content digest is {@code digest}): every record in file
   * order, the SOA too, with the key of each one's line when {@link PlainMasterFile} read them
   * (else null).
   */
  static MasterFile of(
      Path path,
      byte[] digest,
      Name origin,
      long ttl,
      Record[] records,
      long[] lineKeys,
      SOARecord soa) {
    if (lineKeys != null && lineKeys.length != records.length) {
      throw new IllegalArgumentException(
          lineKeys.length + " line keys for " + records.length + " records");
    }
    return new MasterFile(path, digest, origin, ttl, records, lineKeys, soa);
  }

  /** Whether these records are what reading {@code path} with this digest, origin, TTL gives. */
  boolean readFrom(Path path, byte[] digest, Name origin, long ttl) {
    return this.path.equals(path)
        && Arrays.equals(this.digest, digest)
        && this.origin.equals(origin)
        && this.ttl == ttl;
  }

  /** Every record read, in file order, the SOA too. */
  Record[] records() {
    return records;
  }

  /** The key of each record's line, as {@link PlainMasterFile} gives them; null when unknown. */
  long[] lineKeys() {
    return lineKeys;
  }

  /** The file's SOA, or null. */
  SOARecord soa() {
    return soa;
  }

  /**
   * The content of {@code file}, read in small steps. {@code Files.readAllBytes} reads a large file
   * through one temporary native buffer of the file's size; glibc keeps such a block in the reading
   * thread's arena once freed, and as every reload runs on a new thread, each reload of a 25 MB
   * file left about 25 MB more resident memory behind.
   */
  static byte[] read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] b = new byte[(int) Math.min(Files.size(file), MAX_ARRAY)];
      int at = fill(in, b, 0);
      if (at < b.length) {
        // The file shrank since its size was read.
        return Arrays.copyOf(b, at);
      }
      int next = in.read();
      while (next >= 0) {
        // It grew: take the rest too.
        if (b.length >= MAX_ARRAY) {
          throw new IOException(file + " is larger than " + MAX_ARRAY + " bytes");
        }
        b = Arrays.copyOf(b, (int) Math.min(2L * b.length + 1, MAX_ARRAY));
        b[at++] = (byte) next;
        at = fill(in, b, at);
        if (at < b.length) {
          return Arrays.copyOf(b, at);
        }
        next = in.read();
      }
      return b;
    }
  }

  /** Reads into {@code b} from {@code at} until it is full or the stream ends; returns the end. */
  private static int fill(InputStream in, byte[] b, int at) throws IOException {
    while (at < b.length) {
      int n = in.read(b, at, Math.min(READ_STEP, b.length - at));
      if (n < 0) {
        break;
      }
      at += n;
    }
    return at;
  }

  /** The SHA-256 of {@code content}. */
  static byte[] digest(byte[] content) {
    return sha256().digest(content);
  }

  /** A SHA-256 digest, which every Java runtime has. */
  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
    }
  }
}
