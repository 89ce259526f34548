package io.sluice.core.store;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only file of framed records, each forced to disk before {@link #append} returns.
 *
 * <p>On open, a bad frame with nothing intact after it is the torn tail of an interrupted write: it
 * is cut off and its size reported. A bad frame followed by an intact one is damage in the middle
 * of the file, which no crash produces: opening fails with a {@link StateCorruptException} and the
 * file is left untouched. Plain file I/O rather than an NIO channel: an interrupted caller thread
 * would close a channel for good, and with it every later commit.
 */
final class JournalFile implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(JournalFile.class.getName());

  private final Path path;
  private final RandomAccessFile file;
  private final DiskWrites writes;
  private final List<byte[]> recovered;
  private final long tornBytes;
  private long size;
  private boolean broken;

  JournalFile(Path path, Path stateDir, DiskWrites writes) throws IOException {
    this.path = path;
    this.writes = writes;
    this.file = new RandomAccessFile(path.toFile(), "rw");
    try {
      Scan scan = scan(path, readAll(path, file));
      if (scan.damagedAt() >= 0) {
        throw new StateCorruptException(
            stateDir,
            "journal "
                + path
                + " is damaged at byte "
                + scan.intactEnd()
                + ": "
                + (scan.damagedAt() - scan.intactEnd())
                + " bad bytes are followed by intact records (up to byte "
                + scan.length()
                + ")");
      }
      this.recovered = scan.records();
      this.size = scan.intactEnd();
      this.tornBytes = scan.length() - size;
      if (tornBytes > 0) {
        LOG.log(
            System.Logger.Level.WARNING,
            "journal {0}: cut a torn tail of {1} bytes at byte {2} (an interrupted last write;"
                + " {3} intact records kept)",
            path,
            tornBytes,
            size,
            recovered.size());
        file.setLength(size);
        file.getFD().sync();
      }
    } catch (IOException | RuntimeException e) {
      file.close();
      throw e;
    }
  }

  private static byte[] readAll(Path path, RandomAccessFile file) throws IOException {
    long length = file.length();
    if (length > Integer.MAX_VALUE) {
      throw new IOException("journal " + path + " is too large: " + length + " bytes");
    }
    byte[] bytes = new byte[(int) length];
    file.seek(0);
    file.readFully(bytes);
    return bytes;
  }

  /**
   * What a journal's bytes hold: the records of the intact prefix, where it ends, and the offset of
   * the first intact frame after a bad one (-1 when the bad bytes are only a tail).
   */
  record Scan(List<byte[]> records, int intactEnd, int damagedAt, int length, List<byte[]> after) {}

  static Scan scan(Path path, byte[] bytes) {
    ByteBuffer all = ByteBuffer.wrap(bytes);
    List<byte[]> records = new ArrayList<>();
    byte[] r;
    while ((r = RecordCodec.next(all)) != null) {
      records.add(r);
    }
    int end = all.position();
    int resumes = end < bytes.length ? RecordCodec.nextIntactFrom(bytes, end + 1) : -1;
    List<byte[]> after = new ArrayList<>();
    if (resumes >= 0) {
      // Everything intact after the damage, for the repair command; gaps are skipped again.
      int pos = resumes;
      while (pos >= 0 && pos < bytes.length) {
        ByteBuffer b = ByteBuffer.wrap(bytes).position(pos);
        byte[] rec = RecordCodec.next(b);
        if (rec != null) {
          after.add(rec);
          pos = b.position();
        } else {
          pos = RecordCodec.nextIntactFrom(bytes, pos + 1);
        }
      }
    }
    return new Scan(records, end, resumes, bytes.length, after);
  }

  /** The intact records found on open, oldest first. */
  List<byte[]> recovered() {
    return recovered;
  }

  /** How many bytes of a torn tail were cut off on open. */
  long tornBytes() {
    return tornBytes;
  }

  long size() {
    return size;
  }

  /**
   * Appends one record and forces it to disk. When that fails (a full disk), the partial frame is
   * cut off again, so that the record the caller is told failed cannot reappear after a restart.
   */
  void append(byte[] payload) throws IOException {
    if (broken) {
      throw new IOException(
          "journal " + path + " could not be restored after a failed write; restart the node");
    }
    ByteBuffer b = RecordCodec.frame(payload);
    try {
      writes.appendForced(path, file, size, b.array(), b.limit());
    } catch (IOException e) {
      for (Throwable t : e.getSuppressed()) {
        broken |= t instanceof DiskWrites.UncutException;
      }
      throw e;
    }
    size += b.limit();
  }

  /** Empties the journal once its content is safe in a snapshot. */
  void reset() throws IOException {
    file.setLength(0);
    file.getFD().sync();
    size = 0;
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
