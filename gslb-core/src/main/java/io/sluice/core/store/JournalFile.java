package io.sluice.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only file of framed records, each forced to disk before {@link #append} returns. On
 * open, the intact prefix is kept and a torn or corrupt tail (a crash mid-write) is cut off.
 */
final class JournalFile implements AutoCloseable {
  private final FileChannel channel;
  private final List<byte[]> recovered;
  private final long tornBytes;
  private long size;

  JournalFile(Path file) throws IOException {
    this.channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    long length = channel.size();
    if (length > Integer.MAX_VALUE) {
      throw new IOException("journal " + file + " is too large: " + length + " bytes");
    }
    ByteBuffer all = ByteBuffer.allocate((int) length);
    while (all.hasRemaining() && channel.read(all, all.position()) >= 0) {
      // read until full
    }
    all.flip();
    List<byte[]> records = new ArrayList<>();
    byte[] r;
    while ((r = RecordCodec.next(all)) != null) {
      records.add(r);
    }
    this.recovered = records;
    this.size = all.position();
    this.tornBytes = length - size;
    if (tornBytes > 0) {
      channel.truncate(size);
      channel.force(true);
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
    long at = size;
    while (b.hasRemaining()) {
      at += channel.write(b, at);
    }
    channel.force(false);
    size = at;
  }

  /** Empties the journal once its content is safe in a snapshot. */
  void reset() throws IOException {
    channel.truncate(0);
    channel.force(true);
    size = 0;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
