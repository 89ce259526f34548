package io.sluice.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;

/**
 * The embedded {@link DurableLog}: a journal ({@code journal.log}) of sequence-numbered records,
 * each fsync'd before {@link #commit} returns, compacted every {@code compactEvery} records into
 * {@code snapshot.bin}, which is replaced atomically, and a marker ({@code store.properties})
 * written at creation. Recovery takes the newest intact record of either. A torn journal tail is
 * cut and logged; damage that no crash explains (a bad record followed by intact ones, a snapshot
 * missing after compaction) refuses the open with a {@link StateCorruptException}. One writer at a
 * time: callers serialise commits.
 */
public final class FileDurableLog implements DurableLog {
  private static final System.Logger LOG = System.getLogger(FileDurableLog.class.getName());

  private final Path dir;
  private final FileChannel lockChannel;
  private final DiskWrites writes;
  private final SnapshotFile snapshot;
  private final JournalFile journal;
  private final StoreMarker marker;
  private final int compactEvery;
  private final byte[] recoveredState;
  private final long tornBytes;
  private long seq;
  private int sinceCompaction;

  private FileDurableLog(Path dir, int compactEvery, DiskWrites writes) throws IOException {
    Files.createDirectories(dir);
    this.dir = dir;
    this.writes = writes;
    this.lockChannel = lock(dir, "the state directory " + dir + " is in use by another process");
    this.compactEvery = compactEvery;
    this.snapshot = new SnapshotFile(dir.resolve("snapshot.bin"), writes);
    JournalFile j = null;
    try {
      Optional<StoreMarker> found = StoreMarker.read(dir);
      Optional<byte[]> snap = snapshot.read();
      long snapSeq = 0;
      byte[] best = null;
      if (snap.isPresent()) {
        ByteBuffer b = ByteBuffer.wrap(snap.get());
        snapSeq = b.getLong();
        best = rest(b);
      }
      j = new JournalFile(dir.resolve("journal.log"), stateDir(dir), writes);
      List<byte[]> records = j.recovered();
      long firstJournalSeq = records.isEmpty() ? 0 : ByteBuffer.wrap(records.get(0)).getLong();
      checkSnapshotPresent(found, snap.isPresent(), snapSeq, firstJournalSeq);
      long bestSeq = snapSeq;
      for (byte[] r : records) {
        ByteBuffer b = ByteBuffer.wrap(r);
        long s = b.getLong();
        // Records at or below the snapshot's sequence were compacted before a crash cut the reset.
        if (s > bestSeq) {
          bestSeq = s;
          best = rest(b);
        }
      }
      if (found.isPresent()) {
        this.marker = found.get();
      } else {
        // A fresh directory, or one written before markers existed: either way it is valid now.
        this.marker = StoreMarker.create(dir, snapSeq, writes);
        if (bestSeq > 0) {
          LOG.log(
              System.Logger.Level.INFO,
              "state directory {0} predates store markers; marker written",
              dir);
        }
      }
      this.journal = j;
      this.tornBytes = j.tornBytes();
      this.seq = bestSeq;
      this.recoveredState = best;
      this.sinceCompaction = records.size();
    } catch (IOException | RuntimeException e) {
      if (j != null) {
        j.close();
      }
      lockChannel.close();
      throw e;
    }
  }

  /**
   * Takes the directory's exclusive lock, held until the returned channel is closed; fails with
   * {@code inUse} when another process (or another open in this one) holds it.
   */
  static FileChannel lock(Path dir, String inUse) throws IOException {
    // Two processes appending to one journal would corrupt it: the second one is refused.
    FileChannel ch =
        FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock held;
    try {
      held = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      held = null;
    }
    if (held == null) {
      ch.close();
      throw new IOException(inUse);
    }
    return ch;
  }

  /** The directory an operator names to the repair command: the parent of {@code traffic/}. */
  static Path stateDir(Path dir) {
    Path parent = dir.toAbsolutePath().getParent();
    return parent == null ? dir : parent;
  }

  private void checkSnapshotPresent(
      Optional<StoreMarker> m, boolean snapshotPresent, long snapSeq, long firstJournalSeq)
      throws StateCorruptException {
    long compacted = m.map(StoreMarker::compactedThrough).orElse(0L);
    if (!snapshotPresent && compacted > 0) {
      throw new StateCorruptException(
          stateDir(dir),
          "snapshot "
              + dir.resolve("snapshot.bin")
              + " is missing, but records up to "
              + compacted
              + " were compacted into it (the traffic state would silently reset)");
    }
    if (!snapshotPresent && firstJournalSeq > 1) {
      throw new StateCorruptException(
          stateDir(dir),
          "journal "
              + dir.resolve("journal.log")
              + " starts at record "
              + firstJournalSeq
              + ", after a snapshot "
              + dir.resolve("snapshot.bin")
              + " that is missing");
    }
    if (snapshotPresent && snapSeq < compacted) {
      throw new StateCorruptException(
          stateDir(dir),
          "snapshot "
              + dir.resolve("snapshot.bin")
              + " holds record "
              + snapSeq
              + ", older than record "
              + compacted
              + " compacted into it (an old copy was put back?)");
    }
  }

  /** Opens (creating if needed) the log in {@code dir}, writing through {@code writes}. */
  public static FileDurableLog open(Path dir, int compactEvery, DiskWrites writes)
      throws IOException {
    if (compactEvery < 1) {
      throw new IllegalArgumentException("compactEvery must be at least 1, was " + compactEvery);
    }
    return new FileDurableLog(dir, compactEvery, writes);
  }

  /** Opens (creating if needed) the log in {@code dir}. */
  public static FileDurableLog open(Path dir, int compactEvery) throws IOException {
    return open(dir, compactEvery, DiskWrites.DIRECT);
  }

  /** Opens the log in {@code dir}, compacting every 1000 records. */
  public static FileDurableLog open(Path dir) throws IOException {
    return open(dir, 1000);
  }

  private static byte[] rest(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Override
  public Optional<byte[]> recover() {
    return Optional.ofNullable(recoveredState);
  }

  /** Bytes of a torn journal tail that were cut off (and logged) on open. */
  public long tornBytes() {
    return tornBytes;
  }

  /** The sequence number of the last committed record. */
  public long sequence() {
    return seq;
  }

  @Override
  public String location() {
    return dir.toString();
  }

  /** The directory this log lives in. */
  public Path directory() {
    return dir;
  }

  /** Every snapshot version up to this one may have been handed out by an earlier run. */
  public long versionsReserved() {
    return marker.versionsReserved();
  }

  /** Durably records that versions up to {@code through} may be handed out. */
  public void reserveVersions(long through) throws IOException {
    marker.reserveVersions(through, writes);
  }

  /** Rewrites the marker (a new file, forced, renamed): fails while the file system is full. */
  @Override
  public void checkWritable() throws IOException {
    marker.rewrite(writes);
  }

  @Override
  public synchronized void commit(byte[] state) throws IOException {
    long next = seq + 1;
    byte[] record = ByteBuffer.allocate(8 + state.length).putLong(next).put(state).array();
    journal.append(record);
    seq = next;
    if (++sinceCompaction >= compactEvery) {
      try {
        snapshot.write(record);
        // The marker first: a journal emptied while the marker still said "nothing compacted"
        // would make a later loss of the snapshot look like a fresh install.
        marker.compacted(next, writes);
        journal.reset();
        sinceCompaction = 0;
      } catch (IOException e) {
        // The record is already durable in the journal; compaction is retried on the next commit.
        LOG.log(System.Logger.Level.WARNING, "state compaction failed, will retry", e);
      }
    }
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      journal.close();
    } finally {
      lockChannel.close();
    }
  }
}
