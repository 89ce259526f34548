package io.sluice.core.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * {@code store.properties}: written when a state directory is created, so that a fresh install is
 * recognised positively rather than by the absence of files. It also records how far the journal
 * was compacted into the snapshot (so a missing snapshot is detected) and how far snapshot versions
 * are reserved (so versions never go backwards across restarts). Replaced atomically.
 */
final class StoreMarker {
  static final String FILE = "store.properties";
  static final int FORMAT = 2;

  private final Path file;
  private final long created;
  private volatile long compactedThrough;
  private volatile long versionsReserved;

  private StoreMarker(Path file, long created, long compactedThrough, long versionsReserved) {
    this.file = file;
    this.created = created;
    this.compactedThrough = compactedThrough;
    this.versionsReserved = versionsReserved;
  }

  static Optional<StoreMarker> read(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    Properties p = new Properties();
    p.load(new java.io.StringReader(text));
    if (p.getProperty("created") == null) {
      // Every release writes created=; without it the file is not a marker (overwritten, or
      // garbage), and reading it with the defaults would forget how far the journal was
      // compacted, so a snapshot lost with it would pass for a fresh install.
      throw damaged(file, "it has no created= line");
    }
    try {
      int format = Integer.parseInt(p.getProperty("format", "1").strip());
      if (format > FORMAT) {
        // A newer release's store: its records may mean something this release would misread.
        throw new StateFormat.StateFormatException(
            "the traffic store marker "
                + file
                + " has format "
                + format
                + "; this release ("
                + StateFormat.release()
                + ") reads store formats up to "
                + FORMAT
                + ". Run the newer release, or restore a backup made by this one (see"
                + " docs/state.md#format-versions)");
      }
      return Optional.of(
          new StoreMarker(
              file,
              Long.parseLong(p.getProperty("created", "0")),
              Long.parseLong(p.getProperty("compactedThrough", "0")),
              Long.parseLong(p.getProperty("versionsReservedThrough", "0"))));
    } catch (NumberFormatException e) {
      throw damaged(file, e.getMessage());
    }
  }

  /** Damage that the repair command mends: it rewrites the marker from the records it keeps. */
  private static StateCorruptException damaged(Path file, String why) {
    return new StateCorruptException(
        FileDurableLog.stateDir(file.getParent()), "state marker " + file + " is damaged: " + why);
  }

  /** Writes a new marker into {@code dir}. */
  static StoreMarker create(Path dir, long compactedThrough, DiskWrites writes) throws IOException {
    StoreMarker m = new StoreMarker(dir.resolve(FILE), System.currentTimeMillis(), 0, 0);
    m.compactedThrough = compactedThrough;
    m.write(writes);
    return m;
  }

  long compactedThrough() {
    return compactedThrough;
  }

  long versionsReserved() {
    return versionsReserved;
  }

  synchronized void compacted(long seq, DiskWrites writes) throws IOException {
    long old = compactedThrough;
    compactedThrough = seq;
    try {
      write(writes);
    } catch (IOException e) {
      compactedThrough = old;
      throw e;
    }
  }

  synchronized void reserveVersions(long through, DiskWrites writes) throws IOException {
    long old = versionsReserved;
    versionsReserved = Math.max(old, through);
    try {
      write(writes);
    } catch (IOException e) {
      versionsReserved = old;
      throw e;
    }
  }

  synchronized void rewrite(DiskWrites writes) throws IOException {
    write(writes);
  }

  private void write(DiskWrites writes) throws IOException {
    String text =
        "# Sluice state store: written when this directory was created. Do not delete it;\n"
            + "# see docs/state.md.\n"
            + "format="
            + FORMAT
            + "\ncreated="
            + created
            + "\ncompactedThrough="
            + compactedThrough
            + "\nversionsReservedThrough="
            + versionsReserved
            + "\n";
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    writes.replace(file, bytes, bytes.length);
  }
}
