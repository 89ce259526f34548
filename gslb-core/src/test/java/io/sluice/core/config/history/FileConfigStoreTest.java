package io.sluice.core.config.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state-directory history on real files: the last N versions are kept with the copies they
 * reference, numbers continue after a reopen, a stale expected version is a conflict, and an upload
 * is installed only whole, in order and with the right hash.
 */
class FileConfigStoreTest {
  @TempDir Path dir;

  private static ConfigVersion draft(String yaml, Map<String, String> files) {
    return ConfigVersion.draft(
        yaml, files, "alice", "operator", ConfigSource.PUSH, "why", 1_000L, null);
  }

  @Test
  void keepsTheLastVersionsAndTheirFilesAndNumbersGoOnAfterAReopen() throws Exception {
    FileConfigStore store = FileConfigStore.open(dir, 3);
    String first = store.blobs().add("zone v1\n".getBytes(StandardCharsets.UTF_8));
    // Received two hours ago: old enough to be forgotten once no kept version names it.
    Files.setLastModifiedTime(
        store.blobs().path(first),
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 7_200_000));
    store.append(draft("v1", Map.of("a.zone", first)), 0);
    for (int i = 2; i <= 5; i++) {
      String sha = store.blobs().add(("zone v" + i + "\n").getBytes(StandardCharsets.UTF_8));
      store.append(draft("v" + i, Map.of("a.zone", sha)), i - 1);
    }
    assertEquals(
        java.util.List.of(5L, 4L, 3L),
        store.versions().stream().map(ConfigVersion::version).toList());
    assertFalse(store.blobs().has(first), "the copy only version 1 referenced is gone");
    String upload = store.blobs().add("uploaded for a push\n".getBytes(StandardCharsets.UTF_8));
    store.append(draft("v6", Map.of()), 5);
    assertTrue(store.blobs().has(upload), "a fresh upload waits for its push");
    assertTrue(store.version(1).isEmpty());

    FileConfigStore reopened = FileConfigStore.open(dir, 3);
    assertEquals(6, reopened.current().orElseThrow().version());
    assertThrows(ConfigStore.Conflict.class, () -> reopened.append(draft("x", Map.of()), 5));
    ConfigVersion seven = reopened.append(draft("v7", Map.of()), 6);
    assertEquals(7, seven.version());
    assertEquals("alice", reopened.version(7).orElseThrow().actor());
    assertEquals(ConfigSource.PUSH, reopened.version(7).orElseThrow().source());
  }

  @Test
  void aVersionMustHaveItsFiles() throws Exception {
    FileConfigStore store = FileConfigStore.open(dir);
    String absent = ConfigVersion.sha256("never stored".getBytes(StandardCharsets.UTF_8));
    assertThrows(
        java.io.IOException.class, () -> store.append(draft("v1", Map.of("a.zone", absent)), 0));
    assertTrue(store.current().isEmpty());
  }

  @Test
  void uploadsArriveInOrderAndAreKeptOnlyWithTheRightHash() throws Exception {
    BlobCache blobs = FileConfigStore.open(dir).blobs();
    byte[] data = "0123456789".getBytes(StandardCharsets.UTF_8);
    String sha = ConfigVersion.sha256(data);
    assertEquals(4, blobs.receive(sha, 0, 10, "0123".getBytes(StandardCharsets.UTF_8)));
    assertThrows(
        IllegalArgumentException.class,
        () -> blobs.receive(sha, 7, 10, "789".getBytes(StandardCharsets.UTF_8)));
    assertEquals(10, blobs.receive(sha, 4, 10, "456789".getBytes(StandardCharsets.UTF_8)));
    assertTrue(blobs.has(sha));
    assertEquals("0123456789", Files.readString(blobs.path(sha)));

    String other = ConfigVersion.sha256("something else".getBytes(StandardCharsets.UTF_8));
    assertThrows(IllegalArgumentException.class, () -> blobs.receive(other, 0, 10, data));
    assertFalse(blobs.has(other));
  }
}
