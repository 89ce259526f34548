package io.sluice.core.store;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The format of a whole state directory, in {@code state-format.properties}: which release wrote it
 * and in which layout, so that a newer release reads (and upgrades) an older directory and an older
 * release refuses a newer one with a clear message instead of misreading it. The files inside keep
 * their own versions (the journal's frame magic, the store marker's {@code format}).
 */
public final class StateFormat {
  private static final System.Logger LOG = System.getLogger(StateFormat.class.getName());

  /** The file name inside the state directory. */
  public static final String FILE = "state-format.properties";

  /**
   * The layout this release writes and the newest it reads: the one docs/state.md describes. Raise
   * it (and add the upgrade from the one before to {@link #open}) when a change of layout would
   * make an older release misread the directory.
   */
  public static final int CURRENT = 1;

  private StateFormat() {}

  /**
   * The format of {@code stateDir} without changing anything: {@link #CURRENT} for a missing or
   * empty directory and for one written before formats were versioned (no file; read as format 1).
   * Throws {@link StateFormatException} for a format this release cannot read.
   */
  public static int check(Path stateDir) throws IOException {
    Path file = stateDir.resolve(FILE);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return CURRENT;
    }
    Properties p = new Properties();
    p.load(new StringReader(text));
    String value = p.getProperty("format");
    int format;
    try {
      format = Integer.parseInt(value == null ? "" : value.strip());
    } catch (NumberFormatException e) {
      throw new StateFormatException(
          file + " is damaged: format=" + value + " is not a number (see docs/state.md)");
    }
    if (format < 1) {
      throw new StateFormatException(
          file + " is damaged: format=" + format + " (formats start at 1; see docs/state.md)");
    }
    if (format > CURRENT) {
      throw new StateFormatException(
          "the state directory "
              + stateDir
              + " has format "
              + format
              + " (written by "
              + p.getProperty("writtenBy", "a newer release")
              + "); this release ("
              + release()
              + ") reads formats up to "
              + CURRENT
              + ". Run the newer release, or restore a backup made by this one (see"
              + " docs/state.md#format-versions)");
    }
    return format;
  }

  /**
   * Checks {@code stateDir} as {@link #check} does, then records this release's format in it: a
   * directory created now, or one written before formats were versioned, gets the file; an older
   * format is upgraded (there is none yet: format 1 is the first).
   */
  public static void open(Path stateDir) throws IOException {
    int found = check(stateDir);
    Path file = stateDir.resolve(FILE);
    boolean recorded = Files.exists(file);
    if (recorded && found == CURRENT) {
      return;
    }
    Files.createDirectories(stateDir);
    if (!recorded && !isEmpty(stateDir)) {
      LOG.log(
          System.Logger.Level.INFO,
          "state directory {0} predates format versioning: read as format {1} and recorded",
          stateDir,
          CURRENT);
    }
    String text =
        "# The layout of this Sluice state directory; see docs/state.md. Do not edit.\n"
            + "format="
            + CURRENT
            + "\nwrittenBy="
            + release()
            + "\n";
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    DiskWrites.DIRECT.replace(file, bytes, bytes.length);
  }

  /** This release's name, from the jar's manifest when it has one. */
  public static String release() {
    String v = StateFormat.class.getPackage().getImplementationVersion();
    return v == null ? "sluice (development build)" : "sluice " + v;
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  /** The state directory's format is one this release cannot read. */
  public static final class StateFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    StateFormatException(String message) {
      super(message);
    }
  }
}
