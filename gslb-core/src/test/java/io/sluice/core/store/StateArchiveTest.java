package io.sluice.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups of a state directory on real files: what goes in, that a restore reproduces it, and that
 * a restore refuses unknown formats, damaged archives and a directory a node holds, touching
 * nothing.
 */
class StateArchiveTest {
  @TempDir Path dir;
  private Path state;

  @BeforeEach
  void stateDirectory() throws IOException {
    state = dir.resolve("state");
    StateFormat.open(state);
    try (FileDurableLog log = FileDurableLog.open(state.resolve("traffic"))) {
      log.commit("{\"drained\":[\"standby\"]}".getBytes(StandardCharsets.UTF_8));
    }
    Files.createDirectories(state.resolve("audit"));
    Files.writeString(state.resolve("audit/audit.jsonl"), "{\"action\":\"drain\"}\n");
    Files.writeString(state.resolve("zone-serials.properties"), "example.test.=7\n");
    secret(state.resolve("admin.token"), "local-token\n");
    secret(state.resolve("cookie.secret"), "00112233445566778899aabbccddeeff\n");
    secret(state.resolve("keys/xfr"), "c2VjcmV0\n");
    Files.writeString(state.resolve("node.properties"), "pid=1\ndns=127.0.0.1:53\n");
  }

  private static void secret(Path f, String text) throws IOException {
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
  }

  private Path backup(StateArchive.Options options) throws IOException {
    Path zip = dir.resolve("backup-" + System.nanoTime() + ".zip");
    try (OutputStream out = Files.newOutputStream(zip)) {
      StateArchive.writeOffline(state, options, out);
    }
    return zip;
  }

  private static List<String> tree(Path root) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.filter(Files::isRegularFile).sorted().toList()) {
        out.add(
            root.relativize(p)
                + " "
                + PosixFilePermissions.toString(Files.getPosixFilePermissions(p))
                + " "
                + new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
      }
    }
    return out;
  }

  @Test
  void aRestoredDirectoryHasEveryFileWithItsContentAndMode() throws Exception {
    Path zip = backup(StateArchive.Options.ALL);
    StateArchive.Manifest m = StateArchive.verify(zip);
    assertEquals(StateArchive.FORMAT, m.format());
    assertEquals(StateFormat.CURRENT, m.stateFormat());
    assertFalse(m.online());
    assertEquals(List.of("admin.token", "cookie.secret"), m.secretFiles());
    assertFalse(m.files().containsKey("node.properties"), "the running node's record stays out");
    assertFalse(m.files().containsKey("traffic/lock"));

    Path fresh = dir.resolve("fresh");
    StateArchive.Restored r = StateArchive.restore(zip, fresh, false);
    List<String> expected = tree(state);
    expected.removeIf(l -> l.startsWith("node.properties ") || l.startsWith("traffic/lock "));
    assertEquals(expected, tree(fresh));
    assertEquals(null, r.movedAside());
    try (FileDurableLog log = FileDurableLog.open(fresh.resolve("traffic"))) {
      assertEquals(
          "{\"drained\":[\"standby\"]}",
          new String(log.recover().orElseThrow(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void secretsCanBeLeftOutTheNamedOnesAndTheConfiguredOnes() throws Exception {
    StateArchive.Manifest m =
        StateArchive.verify(backup(new StateArchive.Options(false, Set.of("keys/xfr"))));
    assertEquals(
        Set.of(
            "audit/audit.jsonl",
            "state-format.properties",
            "traffic/journal.log",
            "traffic/store.properties",
            "zone-serials.properties"),
        m.files().keySet());
    assertFalse(m.secrets());
  }

  @Test
  void anOnlineBackupCopiesWhileQuiescedAndLeavesNoStagingCopy() throws Exception {
    List<String> seen = new ArrayList<>();
    byte[] zip =
        StateArchive.bytes(
            state,
            step -> {
              seen.add("locked");
              step.run();
              // A change written once the writers go on is not in the archive.
              Files.writeString(state.resolve("audit/audit.jsonl"), "later\n");
            },
            StateArchive.Options.ALL);
    Path file = dir.resolve("online.zip");
    Files.write(file, zip);
    StateArchive.Manifest m = StateArchive.verify(file);
    assertEquals(List.of("locked"), seen);
    assertTrue(m.online());
    try (ZipFile z = new ZipFile(file.toFile())) {
      assertArrayEquals(
          "{\"action\":\"drain\"}\n".getBytes(StandardCharsets.UTF_8),
          z.getInputStream(z.getEntry("audit/audit.jsonl")).readAllBytes());
    }
    try (Stream<Path> left = Files.list(state)) {
      assertEquals(
          List.of(), left.filter(p -> p.getFileName().toString().startsWith(".backup-")).toList());
    }
  }

  @Test
  void aStagingCopyLeftByAStoppedProcessIsRemovedAndNeverArchived() throws Exception {
    // A process that is gone (pid 0 is never a user process) left one; a live one is in progress.
    Path left = Files.createDirectories(state.resolve(".backup-0-42/audit"));
    Files.writeString(left.resolve("audit.jsonl"), "copy\n");
    String mine = ".backup-" + ProcessHandle.current().pid() + "-7";
    Files.createDirectories(state.resolve(mine));
    assertTrue(
        StateArchive.verify(backup(StateArchive.Options.ALL)).files().keySet().stream()
            .noneMatch(f -> f.startsWith(".backup-")));
    StateArchive.removeStaging(state);
    assertFalse(Files.exists(state.resolve(".backup-0-42")));
    assertTrue(Files.exists(state.resolve(mine)), "a running backup's copy is left alone");
    assertTrue(Files.exists(state.resolve("audit/audit.jsonl")), "the state itself stays");
  }

  @Test
  void anUnknownArchiveFormatIsRefusedClearly() throws Exception {
    Path zip =
        rewrite(backup(StateArchive.Options.ALL), t -> t.replace("format=1\n", "format=2\n"));
    Path fresh = dir.resolve("fresh");
    StateFormat.StateFormatException e =
        assertThrows(
            StateFormat.StateFormatException.class, () -> StateArchive.restore(zip, fresh, false));
    assertTrue(
        e.getMessage()
            .startsWith(
                zip
                    + " is a backup of format 2 (made by sluice (development build)); this release"
                    + " (sluice (development build)) restores backup format 1 only"),
        e.getMessage());
    assertFalse(Files.exists(fresh));
  }

  @Test
  void aBackupOfANewerStateFormatIsRefused() throws Exception {
    Path zip =
        rewrite(
            backup(StateArchive.Options.ALL), t -> t.replace("stateFormat=1\n", "stateFormat=9\n"));
    IOException e =
        assertThrows(IOException.class, () -> StateArchive.restore(zip, dir.resolve("x"), false));
    assertTrue(e.getMessage().contains("holds a state directory of format 9"), e.getMessage());
  }

  @Test
  void aDamagedArchiveIsRefusedBeforeAnythingChanges() throws Exception {
    Path zip = backup(StateArchive.Options.ALL);
    Path damaged = dir.resolve("damaged.zip");
    try (ZipFile in = new ZipFile(zip.toFile());
        ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(damaged))) {
      for (ZipEntry e : java.util.Collections.list(in.entries())) {
        byte[] b = in.getInputStream(e).readAllBytes();
        if (e.getName().equals("zone-serials.properties")) {
          b[0] ^= 1;
        }
        out.putNextEntry(new ZipEntry(e.getName()));
        out.write(b);
        out.closeEntry();
      }
    }
    Path target = dir.resolve("target");
    Files.createDirectories(target);
    Files.writeString(target.resolve("keep"), "x");
    IOException e =
        assertThrows(IOException.class, () -> StateArchive.restore(damaged, target, true));
    assertEquals(
        damaged
            + " is damaged: zone-serials.properties does not match its checksum in the manifest",
        e.getMessage());
    assertEquals(List.of("keep rw-r--r-- x"), tree(target));
    try (Stream<Path> siblings = Files.list(dir)) {
      assertFalse(siblings.anyMatch(p -> p.getFileName().toString().contains(".restoring-")));
    }
  }

  @Test
  void aDirectoryANodeHoldsIsNeitherRestoredNorBackedUpOffline() throws Exception {
    Path zip = backup(StateArchive.Options.ALL);
    List<String> before = tree(state);
    try (FileDurableLog running = FileDurableLog.open(state.resolve("traffic"))) {
      StateArchive.InUseException e =
          assertThrows(
              StateArchive.InUseException.class, () -> StateArchive.restore(zip, state, true));
      assertTrue(e.getMessage().contains("is in use by a running node: stop it first"));
      assertThrows(
          StateArchive.InUseException.class,
          () ->
              StateArchive.writeOffline(
                  state, StateArchive.Options.ALL, OutputStream.nullOutputStream()));
    }
    assertEquals(before, tree(state));
  }

  @Test
  void aDirectoryThatIsNotEmptyIsReplacedOnlyWhenAskedAndKeptAside() throws Exception {
    Path zip = backup(StateArchive.Options.ALL);
    Path target = dir.resolve("target");
    Files.createDirectories(target);
    Files.writeString(target.resolve("old"), "o");
    IOException e = assertThrows(IOException.class, () -> StateArchive.restore(zip, target, false));
    assertTrue(e.getMessage().contains("is not empty"), e.getMessage());

    StateArchive.Restored r = StateArchive.restore(zip, target, true);
    assertEquals(List.of("old rw-r--r-- o"), tree(r.movedAside()));
    assertTrue(Files.exists(target.resolve("traffic/journal.log")));
  }

  /** A copy of {@code zip} whose manifest text is changed by {@code edit}. */
  private Path rewrite(Path zip, UnaryOperator<String> edit) throws IOException {
    Path out = dir.resolve("edited-" + System.nanoTime() + ".zip");
    try (ZipFile in = new ZipFile(zip.toFile());
        ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(out))) {
      for (ZipEntry e : java.util.Collections.list(in.entries())) {
        byte[] b = in.getInputStream(e).readAllBytes();
        if (e.getName().equals(StateArchive.MANIFEST)) {
          b = edit.apply(new String(b, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        }
        z.putNextEntry(new ZipEntry(e.getName()));
        z.write(b);
        z.closeEntry();
      }
    }
    return out;
  }
}
