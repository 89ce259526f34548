package io.sluice.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state directory's format file: recorded, upgraded from an older layout, refused if newer. */
class StateFormatTest {
  @TempDir Path dir;

  @Test
  void aNewDirectoryGetsTheCurrentFormat() throws Exception {
    Path state = dir.resolve("state");
    StateFormat.open(state);
    String text = Files.readString(state.resolve(StateFormat.FILE));
    assertTrue(text.contains("format=" + StateFormat.CURRENT + "\n"), text);
    assertTrue(text.contains("writtenBy=sluice"), text);
    assertEquals(StateFormat.CURRENT, StateFormat.check(state));
  }

  @Test
  void aDirectoryOfTheFirstReleaseIsReadAndRecorded() throws Exception {
    // The first release: a journal, no store marker, no format file.
    try (FileDurableLog log = FileDurableLog.open(dir.resolve("traffic"))) {
      log.commit("{\"revision\":1}".getBytes(StandardCharsets.UTF_8));
    }
    Files.delete(dir.resolve("traffic/store.properties"));
    assertFalse(Files.exists(dir.resolve(StateFormat.FILE)));

    assertEquals(1, StateFormat.check(dir), "an unversioned directory reads as format 1");
    StateFormat.open(dir);
    assertTrue(Files.readString(dir.resolve(StateFormat.FILE)).contains("format=1\n"));
    try (FileDurableLog log = FileDurableLog.open(dir.resolve("traffic"))) {
      assertEquals(
          "{\"revision\":1}", new String(log.recover().orElseThrow(), StandardCharsets.UTF_8));
    }
    assertTrue(Files.exists(dir.resolve("traffic/store.properties")), "the marker is written");
  }

  @Test
  void aDirectoryFromTheFutureIsRefusedWithoutTouchingIt() throws Exception {
    String future = "format=" + (StateFormat.CURRENT + 1) + "\nwrittenBy=sluice 9.0.0\n";
    Files.writeString(dir.resolve(StateFormat.FILE), future);

    StateFormat.StateFormatException e =
        assertThrows(StateFormat.StateFormatException.class, () -> StateFormat.open(dir));
    assertEquals(
        "the state directory "
            + dir
            + " has format "
            + (StateFormat.CURRENT + 1)
            + " (written by sluice 9.0.0); this release (sluice (development build)) reads"
            + " formats up to "
            + StateFormat.CURRENT
            + ". Run the newer release, or restore a backup made by this one (see"
            + " docs/state.md#format-versions)",
        e.getMessage());
    assertEquals(future, Files.readString(dir.resolve(StateFormat.FILE)), "left as it was");
    assertThrows(StateFormat.StateFormatException.class, () -> StateRepair.repair(dir));
  }

  @Test
  void aDamagedFormatFileNamesItself() throws Exception {
    Files.writeString(dir.resolve(StateFormat.FILE), "format=two\n");
    StateFormat.StateFormatException e =
        assertThrows(StateFormat.StateFormatException.class, () -> StateFormat.check(dir));
    assertTrue(
        e.getMessage().startsWith(dir.resolve(StateFormat.FILE) + " is damaged"), e.getMessage());
  }

  @Test
  void aTrafficStoreMarkerFromTheFutureIsRefused() throws Exception {
    Path traffic = dir.resolve("traffic");
    try (FileDurableLog log = FileDurableLog.open(traffic)) {
      log.commit(new byte[] {1});
    }
    Path marker = traffic.resolve("store.properties");
    Files.writeString(marker, Files.readString(marker).replace("format=2", "format=3"));

    StateFormat.StateFormatException e =
        assertThrows(StateFormat.StateFormatException.class, () -> FileDurableLog.open(traffic));
    assertTrue(
        e.getMessage().startsWith("the traffic store marker " + marker + " has format 3;"),
        e.getMessage());
  }
}
