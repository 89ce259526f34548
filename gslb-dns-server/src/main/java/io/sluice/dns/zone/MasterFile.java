package io.sluice.dns.zone;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
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

  /** The SHA-256 of {@code content}. */
  static byte[] digest(byte[] content) {
    return sha256().digest(content);
  }

  /** The digest {@code task} computed, waiting for it. */
  static byte[] digest(FutureTask<byte[]> task) {
    try {
      return task.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("digest of a master file failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while digesting a master file", e);
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
