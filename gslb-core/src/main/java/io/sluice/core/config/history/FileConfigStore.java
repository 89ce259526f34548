package io.sluice.core.config.history;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.store.Directories;
import io.sluice.core.store.StateArchive;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The configuration history in a node's state directory ({@code <stateDir>/config/}): the last
 * {@code keep} versions as {@code versions/<n>.json}, the current number in {@code current}, the
 * referenced files in {@code blobs/}. Every file is written whole and renamed into place, so a
 * crash leaves the previous history; numbers continue across restarts from the highest kept.
 */
public final class FileConfigStore implements ConfigStore {
  /** How many versions a node keeps unless told otherwise. */
  public static final int DEFAULT_KEEP = 20;

  static final ObjectMapper JSON =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path dir;
  private final Path versions;
  private final int keep;
  private final BlobCache blobs;

  private FileConfigStore(Path dir, int keep) throws IOException {
    this.dir = dir;
    this.versions = dir.resolve("versions");
    this.keep = keep;
    Files.createDirectories(versions);
    this.blobs = new BlobCache(dir.resolve("blobs"));
  }

  /** The history under {@code stateDir/config}, keeping the last {@link #DEFAULT_KEEP} versions. */
  public static FileConfigStore open(Path stateDir) throws IOException {
    return open(stateDir, DEFAULT_KEEP);
  }

  /** The history under {@code stateDir/config}, keeping the last {@code keep} versions. */
  public static FileConfigStore open(Path stateDir, int keep) throws IOException {
    if (keep < 2) {
      throw new IllegalArgumentException("keep must be at least 2");
    }
    return new FileConfigStore(stateDir.resolve("config"), keep);
  }

  /** The directory of this history. */
  public Path dir() {
    return dir;
  }

  @Override
  public synchronized Optional<ConfigVersion> current() throws IOException {
    long n = currentNumber();
    return n == 0 ? Optional.empty() : version(n);
  }

  private long currentNumber() throws IOException {
    try {
      return Long.parseLong(Files.readString(dir.resolve("current")).strip());
    } catch (NoSuchFileException e) {
      return 0;
    } catch (NumberFormatException e) {
      throw new IOException(dir.resolve("current") + " does not hold a version number", e);
    }
  }

  @Override
  public synchronized List<ConfigVersion> versions() throws IOException {
    List<ConfigVersion> out = new ArrayList<>();
    for (long n : numbers()) {
      version(n).ifPresent(out::add);
    }
    out.sort(Comparator.comparingLong(ConfigVersion::version).reversed());
    return out;
  }

  @Override
  public synchronized Optional<ConfigVersion> version(long n) throws IOException {
    Path p = versions.resolve(n + ".json");
    byte[] json;
    try {
      json = Files.readAllBytes(p);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    return Optional.of(ConfigVersion.fromJson(json, p.toString()));
  }

  @Override
  public synchronized ConfigVersion append(ConfigVersion draft, long expectedCurrent)
      throws IOException {
    long current = currentNumber();
    if (current != expectedCurrent) {
      throw new Conflict(
          "version " + current + " became current meanwhile (expected " + expectedCurrent + ")");
    }
    for (String sha : draft.files().values()) {
      if (!blobs.has(sha)) {
        throw new IOException("the referenced content " + sha + " is not in " + dir);
      }
    }
    long next = Math.max(current, numbers().stream().mapToLong(x -> x).max().orElse(0)) + 1;
    ConfigVersion v = draft.numbered(next);
    adopt(v);
    return v;
  }

  /**
   * Stores {@code v} under its own number and makes it current (a cluster node's local copy of the
   * versions it applied), then forgets versions beyond the last {@code keep} and their files.
   */
  public synchronized void adopt(ConfigVersion v) throws IOException {
    write(versions.resolve(v.version() + ".json"), v.toJson());
    write(dir.resolve("current"), (v.version() + "\n").getBytes(StandardCharsets.UTF_8));
    prune(v.version());
  }

  /** Runs {@code step} while no version can be added (a consistent copy for a backup). */
  public synchronized void quiesced(StateArchive.IoStep step) throws IOException {
    step.run();
  }

  /** The digest of the configuration file as this node last read it, if recorded. */
  public synchronized Optional<String> fileDigest() throws IOException {
    try {
      return Optional.of(Files.readString(dir.resolve("file-read")).strip());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** Records the digest of the configuration file as this node just read it. */
  public synchronized void fileRead(String digest) throws IOException {
    write(dir.resolve("file-read"), (digest + "\n").getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public BlobCache blobs() {
    return blobs;
  }

  @Override
  public void fetch(ConfigVersion v) throws IOException {
    for (var e : v.files().entrySet()) {
      if (!blobs.has(e.getValue())) {
        throw new IOException(
            "the copy of '" + e.getKey() + "' (sha256 " + e.getValue() + ") is missing in " + dir);
      }
    }
  }

  private List<Long> numbers() throws IOException {
    List<Long> out = new ArrayList<>();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(versions, "*.json")) {
      for (Path p : all) {
        String name = p.getFileName().toString();
        try {
          out.add(Long.parseLong(name.substring(0, name.length() - ".json".length())));
        } catch (NumberFormatException e) {
          // not a version file
        }
      }
    }
    return out;
  }

  private void prune(long current) throws IOException {
    List<Long> all = numbers();
    all.sort(Comparator.reverseOrder());
    Set<String> kept = new HashSet<>();
    for (int i = 0; i < all.size(); i++) {
      long n = all.get(i);
      if (i >= keep && n != current) {
        Files.deleteIfExists(versions.resolve(n + ".json"));
      } else {
        version(n).ifPresent(v -> kept.addAll(v.files().values()));
      }
    }
    blobs.retain(kept);
  }

  private static void write(Path target, byte[] bytes) throws IOException {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(java.nio.ByteBuffer.wrap(bytes));
      ch.force(true);
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    Directories.fsync(target.getParent());
  }
}
