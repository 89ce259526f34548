package io.sluice.probe.persist;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.health.Verdict;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last known verdicts in the state directory ({@code probe-verdicts.json}), written atomically
 * (temporary file, then rename) so a crash never leaves a half-written file, and read back on start
 * to be served as stale until re-checked.
 */
public final class VerdictFile {
  /** The file name inside the state directory. */
  public static final String NAME = "probe-verdicts.json";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int FORMAT = 1;

  /** One saved verdict. */
  public record Saved(Verdict verdict, long sinceMillis, String reason) {}

  /** The on-disk form. */
  record Contents(int format, long savedAtMillis, Map<String, Saved> verdicts) {}

  /**
   * What was restored: the verdicts, whether this is a fresh install (no file), and a note for
   * status.
   */
  public record Restored(Map<String, Saved> verdicts, boolean freshInstall, String note) {}

  private final Path file;

  public VerdictFile(Path stateDirectory) {
    this.file = stateDirectory.resolve(NAME);
  }

  /** Where the verdicts are kept. */
  public Path path() {
    return file;
  }

  /** Reads the saved verdicts; a missing file is a fresh install, an unreadable one is reported. */
  public Restored load() {
    Contents c;
    try {
      c = JSON.readValue(Files.readAllBytes(file), Contents.class);
    } catch (NoSuchFileException e) {
      return new Restored(
          Map.of(), true, "fresh install: no verdict history, every endpoint starts unknown");
    } catch (IOException e) {
      return new Restored(
          Map.of(),
          false,
          "verdict history " + file + " is unreadable (" + e.getMessage() + "); starting unknown");
    }
    if (c == null || c.format() != FORMAT || c.verdicts() == null) {
      return new Restored(
          Map.of(), false, "verdict history " + file + " has an unknown format; starting unknown");
    }
    return new Restored(
        Map.copyOf(c.verdicts()),
        false,
        "restored "
            + c.verdicts().size()
            + " verdicts saved at "
            + Instant.ofEpochMilli(c.savedAtMillis())
            + ", stale until re-checked");
  }

  /** Replaces the file with {@code verdicts}. */
  public void save(Map<String, Saved> verdicts, long nowMillis) throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(NAME + ".tmp");
    byte[] bytes =
        JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsBytes(new Contents(FORMAT, nowMillis, new LinkedHashMap<>(verdicts)));
    Files.write(tmp, bytes);
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
