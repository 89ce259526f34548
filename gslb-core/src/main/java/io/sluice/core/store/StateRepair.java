package io.sluice.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code sluice state repair}: makes a damaged traffic store openable again without losing anything
 * silently. The damaged files are moved into {@code traffic/damaged-<time>/} first; the newest
 * intact record found anywhere (snapshot, journal before or after the damage) becomes the new
 * snapshot, since every record holds the whole traffic state; everything dropped is reported.
 */
public final class StateRepair {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private StateRepair() {}

  /** What the repair did, one line per fact, for the operator. */
  public record Report(boolean changed, List<String> lines) {}

  /** Repairs the traffic store of the state directory {@code stateDir}. */
  public static Report repair(Path stateDir) throws IOException {
    // A newer release's directory is not this release's to repair.
    StateFormat.check(stateDir);
    Path dir = stateDir.resolve("traffic");
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      out.add("no traffic store in " + stateDir + ": nothing to repair");
      return new Report(false, out);
    }
    try (FileDurableLog log = FileDurableLog.open(dir)) {
      out.add(
          "the traffic store in "
              + dir
              + " opens cleanly (record "
              + log.sequence()
              + "): nothing to repair");
      return new Report(false, out);
    } catch (StateCorruptException e) {
      out.add("damage: " + problem(e));
    }
    try (FileChannel lock =
        FileDurableLog.lock(dir, "the state directory " + stateDir + " is in use: stop the node")) {
      return repairLocked(dir, out);
    }
  }

  /** The damage an exception names, without the advice to run this very command. */
  private static String problem(IOException e) {
    String m = e.getMessage();
    int advice = e instanceof StateCorruptException ? m.indexOf("; refusing") : -1;
    return advice < 0 ? m : m.substring(0, advice);
  }

  private static Report repairLocked(Path dir, List<String> out) throws IOException {
    // Every intact record, by sequence number; a later copy of the same number replaces nothing.
    TreeMap<Long, String> sources = new TreeMap<>();
    TreeMap<Long, byte[]> records = new TreeMap<>();
    Optional<StoreMarker> old;
    try {
      old = StoreMarker.read(dir);
    } catch (IOException e) {
      out.add("the store marker is unreadable and is rewritten: " + problem(e));
      old = Optional.empty();
    }
    Path snapPath = dir.resolve("snapshot.bin");
    try {
      Optional<byte[]> snap = new SnapshotFile(snapPath, DiskWrites.DIRECT).read();
      snap.ifPresent(r -> add(records, sources, r, "snapshot"));
      long compacted = old.map(StoreMarker::compactedThrough).orElse(0L);
      if (snap.isEmpty() && compacted > 0) {
        out.add("snapshot.bin is missing (it held the records up to " + compacted + ")");
      }
    } catch (IOException e) {
      out.add("snapshot.bin is unreadable and is not used: " + e.getMessage());
    }
    Path journalPath = dir.resolve("journal.log");
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(journalPath);
    } catch (NoSuchFileException e) {
      bytes = new byte[0];
    }
    JournalFile.Scan scan = JournalFile.scan(journalPath, bytes);
    for (byte[] r : scan.records()) {
      add(records, sources, r, "journal");
    }
    for (byte[] r : scan.after()) {
      add(records, sources, r, "journal after the damage");
    }
    if (scan.damagedAt() >= 0) {
      out.add(
          "dropped "
              + (scan.damagedAt() - scan.intactEnd())
              + " damaged journal bytes at byte "
              + scan.intactEnd());
    } else if (scan.intactEnd() < scan.length()) {
      out.add(
          "dropped a torn journal tail of "
              + (scan.length() - scan.intactEnd())
              + " bytes at byte "
              + scan.intactEnd());
    }
    Path aside = dir.resolve("damaged-" + STAMP.format(Instant.now()));
    Files.createDirectories(aside);
    for (String name : List.of("journal.log", "snapshot.bin", StoreMarker.FILE)) {
      Path p = dir.resolve(name);
      if (Files.exists(p)) {
        Files.copy(p, aside.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    Directories.fsync(aside);
    out.add("copies of the damaged files are in " + aside);
    long newest = records.isEmpty() ? 0 : records.lastKey();
    if (newest > 0) {
      new SnapshotFile(snapPath, DiskWrites.DIRECT).write(records.get(newest));
      List<Long> missing = new ArrayList<>();
      for (long s = records.firstKey(); s < newest && missing.size() < 20; s++) {
        if (!records.containsKey(s)) {
          missing.add(s);
        }
      }
      out.add(
          "kept record "
              + newest
              + " (from the "
              + sources.get(newest)
              + "): it holds the whole traffic state as of the newest intact change");
      if (!missing.isEmpty()) {
        out.add(
            "records lost in the damage (each superseded by record " + newest + "): " + missing);
      }
    } else {
      Files.deleteIfExists(snapPath);
      out.add(
          "no intact record was found: the traffic state restarts from its initial state"
              + " (drains, freezes and last stable plans must be set again); the audit log is kept");
    }
    try (var f = new java.io.RandomAccessFile(journalPath.toFile(), "rw")) {
      f.setLength(0);
      f.getFD().sync();
    }
    StoreMarker m = StoreMarker.create(dir, newest, DiskWrites.DIRECT);
    if (old.isPresent()) {
      m.reserveVersions(old.get().versionsReserved(), DiskWrites.DIRECT);
    }
    out.add("the traffic store opens again; start the node");
    return new Report(true, out);
  }

  private static void add(
      TreeMap<Long, byte[]> records, TreeMap<Long, String> sources, byte[] r, String from) {
    long s = ByteBuffer.wrap(r).getLong();
    if (!records.containsKey(s)) {
      records.put(s, r);
      sources.put(s, from);
    }
  }
}
