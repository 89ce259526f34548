package io.sluice.core.store;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The one place the state directory's files are written through, so that a full disk (a write that
 * stores part of its bytes and then fails) can be reproduced at the file layer.
 */
@FunctionalInterface
public interface DiskWrites {

  /** Writes straight to the file. */
  DiskWrites DIRECT = (file, out, bytes, off, len) -> out.write(bytes, off, len);

  /**
   * Writes {@code len} bytes of {@code bytes} at {@code out}'s position ({@code file} names it).
   */
  void write(Path file, RandomAccessFile out, byte[] bytes, int off, int len) throws IOException;

  /**
   * Writes {@code len} bytes at offset {@code at} of {@code out} and forces them to disk; when that
   * fails (a full disk stores part of the bytes), cuts the file back to {@code at}, so that no half
   * record stays behind for the next append to follow or a restart to read.
   */
  default void appendForced(Path file, RandomAccessFile out, long at, byte[] bytes, int len)
      throws IOException {
    try {
      out.seek(at);
      write(file, out, bytes, 0, len);
      out.getFD().sync();
    } catch (IOException e) {
      try {
        out.setLength(at);
        out.getFD().sync();
      } catch (IOException cut) {
        e.addSuppressed(new UncutException(cut));
      }
      throw e;
    }
  }

  /**
   * Replaces {@code file} whole with {@code len} bytes of {@code bytes}: written to a sibling
   * {@code .tmp} file, forced, renamed over it and the rename forced, so that a crash leaves either
   * the old content or the new one, never a mix.
   */
  default void replace(Path file, byte[] bytes, int len) throws IOException {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try (RandomAccessFile f = new RandomAccessFile(temp.toFile(), "rw")) {
      f.setLength(0);
      write(temp, f, bytes, 0, len);
      f.getFD().sync();
    }
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Directories.fsync(file.getParent());
  }

  /** Cutting a failed append back failed as well: the file may hold a partial record. */
  final class UncutException extends IOException {
    private static final long serialVersionUID = 1L;

    UncutException(IOException cause) {
      super("could not cut a failed write back: " + cause.getMessage(), cause);
    }
  }
}
