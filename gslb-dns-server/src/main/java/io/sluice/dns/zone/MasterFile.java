package io.sluice.dns.zone;

import java.io.BufferedInputStream;
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
  private final Path path;
  private final byte[] digest;
  private final Name origin;
  private final long ttl;
  private final Record[] records;
  private final SOARecord soa;

  private MasterFile(
      Path path, byte[] digest, Name origin, long ttl, Record[] records, SOARecord soa) {
    this.path = path;
    this.digest = digest;
    this.origin = origin;
    this.ttl = ttl;
    this.records = records;
    this.soa = soa;
  }

  /** What was read from {@code path} (whose content digest is {@code digest}). */
  static MasterFile of(
      Path path, byte[] digest, Name origin, long ttl, Record[] records, SOARecord soa) {
    return new MasterFile(path, digest, origin, ttl, records, soa);
  }

  /** Whether these records are what reading {@code path} with this digest, origin, TTL gives. */
  boolean readFrom(Path path, byte[] digest, Name origin, long ttl) {
    return this.path.equals(path)
        && Arrays.equals(this.digest, digest)
        && this.origin.equals(origin)
        && this.ttl == ttl;
  }

  /** The records other than the SOA, in file order. */
  Record[] records() {
    return records;
  }

  /** The file's SOA, or null. */
  SOARecord soa() {
    return soa;
  }

  /** The SHA-256 of the file's content; null when it cannot be read (the parse reports why). */
  static byte[] digest(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest sha = sha256();
      byte[] buf = new byte[1 << 16];
      int n;
      while ((n = in.read(buf)) > 0) {
        sha.update(buf, 0, n);
      }
      return sha.digest();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * The bytes of {@code file} for dnsjava's master file parser, which reads them one at a time,
   * each read block also fed to {@code digest}, so the digest is of exactly the bytes parsed.
   */
  static InputStream reader(Path file, MessageDigest digest) throws IOException {
    return new DigestingInput(Files.newInputStream(file), digest);
  }

  /**
   * A buffer whose one-byte read takes no lock. dnsjava's tokenizer wraps any stream that is not a
   * {@link BufferedInputStream} in one, whose every read is synchronized: a lock taken and released
   * per byte of the file. This one is a BufferedInputStream only so that the tokenizer takes it as
   * it is; it keeps its own buffer and reads only through its own methods.
   */
  private static final class DigestingInput extends BufferedInputStream {
    private final InputStream file;
    private final MessageDigest digest;
    private final byte[] bytes = new byte[1 << 16];
    private int next;
    private int end;

    DigestingInput(InputStream file, MessageDigest digest) {
      super(file, 1);
      this.file = file;
      this.digest = digest;
    }

    @Override
    public int read() throws IOException {
      if (next == end && !fill()) {
        return -1;
      }
      return bytes[next++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (next == end && !fill()) {
        return -1;
      }
      int n = Math.min(len, end - next);
      System.arraycopy(bytes, next, b, off, n);
      next += n;
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = 0;
      while (skipped < n && (next < end || fill())) {
        int step = (int) Math.min(n - skipped, end - next);
        next += step;
        skipped += step;
      }
      return skipped;
    }

    @Override
    public int available() {
      return end - next;
    }

    @Override
    public boolean markSupported() {
      return false;
    }

    @Override
    public void mark(int limit) {}

    @Override
    public void reset() throws IOException {
      throw new IOException("mark/reset is not supported");
    }

    private boolean fill() throws IOException {
      int n;
      do {
        n = file.read(bytes, 0, bytes.length);
      } while (n == 0);
      if (n < 0) {
        return false;
      }
      digest.update(bytes, 0, n);
      next = 0;
      end = n;
      return true;
    }
  }

  /** A SHA-256 digest, which every Java runtime has. */
  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
    }
  }
}
