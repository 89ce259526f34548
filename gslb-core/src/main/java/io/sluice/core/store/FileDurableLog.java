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
 * {@code snapshot.bin}, which is replaced atomically. Recovery takes the newest intact record of
 * either; a torn journal tail is ignored. One writer at a time: callers serialise commits.
 */
public final class FileDurableLog implements DurableLog {
  private final FileChannel lockChannel;
  private final SnapshotFile snapshot;
  private final JournalFile journal;
  private final int compactEvery;
  private final byte[] recoveredState;
  private final long tornBytes;
  private long seq;
  private int sinceCompaction;

  private FileDurableLog(Path dir, int compactEvery) throws IOException {
    Files.createDirectories(dir);
    // Two processes appending to one journal would corrupt it: the second one is refused.
    this.lockChannel =
        FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock held;
    try {
      held = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      held = null;
    }
    if (held == null) {
      lockChannel.close();
      throw new IOException("the state directory " + dir + " is in use by another process");
    }
    this.compactEvery = compactEvery;
    this.snapshot = new SnapshotFile(dir.resolve("snapshot.bin"));
    long bestSeq = 0;
    byte[] best = null;
    Optional<byte[]> snap;
    try {
      snap = snapshot.read();
    } catch (IOException e) {
      lockChannel.close();
      throw e;
    }
    if (snap.isPresent()) {
      ByteBuffer b = ByteBuffer.wrap(snap.get());
      bestSeq = b.getLong();
      best = rest(b);
    }
    try {
      this.journal = new JournalFile(dir.resolve("journal.log"));
    } catch (IOException e) {
      lockChannel.close();
      throw e;
    }
    List<byte[]> records = journal.recovered();
    for (byte[] r : records) {
      ByteBuffer b = ByteBuffer.wrap(r);
      long s = b.getLong();
      // Records at or below the snapshot's sequence were compacted before a crash cut the reset.
      if (s > bestSeq) {
        bestSeq = s;
        best = rest(b);
      }
    }
    this.tornBytes = journal.tornBytes();
    this.seq = bestSeq;
    this.recoveredState = best;
    this.sinceCompaction = records.size();
  }

  /** Opens (creating if needed) the log in {@code dir}. */
  public static FileDurableLog open(Path dir, int compactEvery) throws IOException {
    if (compactEvery < 1) {
      throw new IllegalArgumentException("compactEvery must be at least 1, was " + compactEvery);
    }
    return new FileDurableLog(dir, compactEvery);
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

  /** Bytes of a torn or corrupt journal tail that were discarded on open. */
  public long tornBytes() {
    return tornBytes;
  }

  /** The sequence number of the last committed record. */
  public long sequence() {
    return seq;
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
        journal.reset();
        sinceCompaction = 0;
      } catch (IOException e) {
        // The record is already durable in the journal; compaction is retried on the next commit.
        System.getLogger(FileDurableLog.class.getName())
            .log(System.Logger.Level.WARNING, "state compaction failed, will retry", e);
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
