package io.sluice.core.config.history;

import io.sluice.core.store.Directories;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Set;

/**
 * The node's copies of the files configurations reference (master files, GeoIP databases), one file
 * per content, named by its SHA-256. A copy is only ever installed whole and after its hash was
 * checked, so a name present here always holds exactly that content; configurations are built from
 * these copies, so a rollback runs exactly what ran before.
 */
public final class BlobCache {
  private static final long UPLOAD_GRACE_MILLIS = 3_600_000;
  private final Path dir;
  private final Path uploads;

  /** A cache in {@code dir}, created when missing. */
  public BlobCache(Path dir) throws IOException {
    this.dir = dir;
    this.uploads = dir.resolve("uploads");
    Files.createDirectories(uploads);
  }

  /** Where the content {@code sha256} is (or would be) kept. */
  public Path path(String sha256) {
    if (!ConfigVersion.isSha256(sha256)) {
      throw new IllegalArgumentException("not a SHA-256: '" + sha256 + "'");
    }
    return dir.resolve(sha256);
  }

  /** Whether the content {@code sha256} is held. */
  public boolean has(String sha256) {
    return ConfigVersion.isSha256(sha256) && Files.isRegularFile(dir.resolve(sha256));
  }

  /**
   * Whether the content {@code sha256} is held; if so it counts as just received, so that pruning
   * leaves it for the hour a push that names it may take.
   */
  public boolean hold(String sha256) throws IOException {
    if (!has(sha256)) {
      return false;
    }
    try {
      Files.setLastModifiedTime(
          dir.resolve(sha256),
          java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
      return true;
    } catch (java.nio.file.NoSuchFileException e) {
      return false;
    }
  }

  /**
   * Copies {@code file} in and returns the SHA-256 of what was copied; content already held is not
   * installed again (a GeoIP database is read at every reload). The file is read once: hashing it
   * first and copying it after read and hashed a large master file twice at every start.
   */
  public String add(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return install(in, null);
    }
  }

  /** Stores {@code data} and returns its SHA-256. */
  public String add(byte[] data) throws IOException {
    return install(new java.io.ByteArrayInputStream(data), null);
  }

  /**
   * Stores the content read from {@code in}, which must hash to {@code sha256}; a mismatch stores
   * nothing and throws.
   */
  public void put(String sha256, InputStream in) throws IOException {
    path(sha256);
    install(in, sha256);
  }

  /**
   * Receives one part of an upload of {@code size} bytes hashing to {@code sha256}: parts arrive in
   * order, {@code offset} being the number of bytes received so far (0 starts over). Returns the
   * bytes received; when that reaches {@code size} the content is checked and installed.
   *
   * @throws IllegalArgumentException when the offset, size or the completed content's hash is wrong
   */
  public synchronized long receive(String sha256, long offset, long size, byte[] part)
      throws IOException {
    path(sha256);
    if (has(sha256)) {
      return size;
    }
    Path partial = uploads.resolve(sha256 + ".part");
    long have = Files.exists(partial) ? Files.size(partial) : 0;
    if (offset == 0) {
      have = 0;
    } else if (offset != have) {
      throw new IllegalArgumentException(
          "offset " + offset + " does not follow the " + have + " byte(s) received so far");
    }
    if (offset + part.length > size) {
      throw new IllegalArgumentException(
          "the part ends at " + (offset + part.length) + ", past the size " + size);
    }
    try (OutputStream out =
        Files.newOutputStream(
            partial,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            offset == 0 ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.APPEND)) {
      out.write(part);
    }
    long received = offset + part.length;
    if (received == size) {
      try (InputStream in = Files.newInputStream(partial)) {
        install(in, sha256);
      } catch (IOException e) {
        if (e.getMessage() != null && e.getMessage().startsWith("content hashes to")) {
          throw new IllegalArgumentException(e.getMessage());
        }
        throw e;
      } finally {
        Files.deleteIfExists(partial);
      }
    }
    return received;
  }

  /**
   * Removes every held content not in {@code keep}, except content received in the last hour: an
   * upload waits there for the push that names it.
   */
  public void retain(Set<String> keep) throws IOException {
    long recent = System.currentTimeMillis() - UPLOAD_GRACE_MILLIS;
    try (DirectoryStream<Path> all = Files.newDirectoryStream(dir)) {
      for (Path p : all) {
        String name = p.getFileName().toString();
        if (ConfigVersion.isSha256(name)
            && !keep.contains(name)
            && Files.getLastModifiedTime(p).toMillis() < recent) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** Writes to a temporary file while hashing, checks the hash, then renames into place. */
  private String install(InputStream in, String expected) throws IOException {
    Path tmp = Files.createTempFile(uploads, "blob", ".tmp");
    try {
      MessageDigest md = ConfigVersion.digester();
      try (OutputStream out = new DigestOutputStream(Files.newOutputStream(tmp), md)) {
        in.transferTo(out);
      }
      String sha = HexFormat.of().formatHex(md.digest());
      if (expected != null && !expected.equals(sha)) {
        throw new IOException("content hashes to " + sha + ", expected " + expected);
      }
      if (hold(sha)) {
        // Already held, and a held name always has exactly its content: the copy is not needed.
        return sha;
      }
      try (var ch = java.nio.channels.FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      Files.move(tmp, dir.resolve(sha), StandardCopyOption.ATOMIC_MOVE);
      Directories.fsync(dir);
      return sha;
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
