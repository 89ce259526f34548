package io.sluice.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A file holding one framed record, replaced atomically: written to a temporary file, forced,
 * renamed over the old one, then the directory is forced, so a reader sees either the old or the
 * new content, never a mix.
 */
final class SnapshotFile {
  private final Path file;
  private final DiskWrites writes;

  SnapshotFile(Path file, DiskWrites writes) {
    this.file = file;
    this.writes = writes;
  }

  void write(byte[] payload) throws IOException {
    ByteBuffer b = RecordCodec.frame(payload);
    writes.replace(file, b.array(), b.limit());
  }

  /** The stored payload; a damaged file is an error, since it was only ever replaced whole. */
  Optional<byte[]> read() throws IOException {
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    ByteBuffer b = ByteBuffer.wrap(all);
    byte[] payload = RecordCodec.next(b);
    if (payload == null || b.hasRemaining()) {
      throw new StateCorruptException(
          FileDurableLog.stateDir(file.getParent()),
          "snapshot file " + file + " is damaged (bad length or checksum)");
    }
    return Optional.of(payload);
  }
}
