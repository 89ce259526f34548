package io.sluice.core.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Forces a directory's entries (a rename, a new file) to disk where the platform allows it. */
public final class Directories {
  private Directories() {}

  /** Forces {@code dir}'s entries to disk. */
  public static void fsync(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some platforms (Windows) cannot open a directory; POSIX ones must succeed.
      if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
        throw e;
      }
    }
  }
}
