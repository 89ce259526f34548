package io.sluice.core.store;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only file of framed records, each forced to disk before {@link #append} returns. On
 * open, the intact prefix is kept and a torn or corrupt tail (a crash mid-write) is cut off. Plain
 * file I/O rather than an NIO channel: an interrupted caller thread would close a channel for good,
 * and with it every later commit.
 */
final class JournalFile implements AutoCloseable {
  private final RandomAccessFile file;
  private final List<byte[]> recovered;
  private final long tornBytes;
  private long size;

  JournalFile(Path path) throws IOException {
    this.file = new RandomAccessFile(path.toFile(), "rw");
    long length = file.length();
    if (length > Integer.MAX_VALUE) {
      file.close();
      throw new IOException("journal " + path + " is too large: " + length + " bytes");
    }
    byte[] bytes = new byte[(int) length];
    file.readFully(bytes);
    ByteBuffer all = ByteBuffer.wrap(bytes);
    List<byte[]> records = new ArrayList<>();
    byte[] r;
    while ((r = RecordCodec.next(all)) != null) {
      records.add(r);
    }
    this.recovered = records;
    this.size = all.position();
    this.tornBytes = length - size;
    if (tornBytes > 0) {
      file.setLength(size);
      file.getFD().sync();
    }
  }

  /** The intact records found on open, oldest first. */
  List<byte[]> recovered() {
    return recovered;
  }

  /** How many bytes of a torn or corrupt tail were cut off on open. */
  long tornBytes() {
    return tornBytes;
  }

  long size() {
    return size;
  }

  void append(byte[] payload) throws IOException {
    ByteBuffer b = RecordCodec.frame(payload);
    file.seek(size);
    file.write(b.array(), 0, b.limit());
    file.getFD().sync();
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
