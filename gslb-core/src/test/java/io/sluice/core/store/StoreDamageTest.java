package io.sluice.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage to real store files: a flipped byte in the middle of the journal, a torn tail, a snapshot
 * deleted after compaction, a write that fails half-way as on a full disk; and the repair command.
 */
class StoreDamageTest {
  @TempDir Path stateDir;

  private Path traffic() {
    return stateDir.resolve("traffic");
  }

  private void commitAll(int compactEvery, String... states) throws IOException {
    try (FileDurableLog log = FileDurableLog.open(traffic(), compactEvery)) {
      for (String s : states) {
        log.commit(s.getBytes(UTF_8));
      }
    }
  }

  private String recovered() throws IOException {
    try (FileDurableLog log = FileDurableLog.open(traffic(), 1000)) {
      return log.recover().map(b -> new String(b, UTF_8)).orElse(null);
    }
  }

  private static int frameStart(byte[] journal, int index) {
    int pos = 0;
    for (int i = 0; i < index; i++) {
      pos += RecordCodec.HEADER + ByteBuffer.wrap(journal).getInt(pos + 4);
    }
    return pos;
  }

  @Test
  void aFlippedByteInTheMiddleRefusesToOpenAndLeavesTheFileAlone() throws IOException {
    commitAll(1000, "one", "two", "three", "four", "five", "six");
    Path journal = traffic().resolve("journal.log");
    byte[] bytes = Files.readAllBytes(journal);
    bytes[frameStart(bytes, 1) + RecordCodec.HEADER + 9] ^= 0x20; // inside "two"
    Files.write(journal, bytes);

    StateCorruptException e = assertThrows(StateCorruptException.class, this::recovered);
    assertTrue(
        e.getMessage().contains("is damaged at byte " + frameStart(bytes, 1)), e.getMessage());
    assertTrue(e.getMessage().contains("followed by intact records"), e.getMessage());
    assertTrue(
        e.getMessage().contains("sluice state repair --state-dir " + stateDir.toAbsolutePath()),
        e.getMessage());
    assertArrayEquals(bytes, Files.readAllBytes(journal), "nothing is truncated");
  }

  @Test
  void repairKeepsACopyAndTheNewestIntactRecordAndSaysWhatItDropped() throws IOException {
    commitAll(1000, "one", "two", "three", "four", "five", "six");
    Path journal = traffic().resolve("journal.log");
    byte[] bytes = Files.readAllBytes(journal);
    bytes[frameStart(bytes, 2) + 2] ^= 0x01; // the magic of record 3
    Files.write(journal, bytes);

    StateRepair.Report report = StateRepair.repair(stateDir);
    String text = String.join("\n", report.lines());
    assertTrue(report.changed(), text);
    assertTrue(text.contains("kept record 6"), text);
    assertTrue(
        text.contains("records lost in the damage (each superseded by record 6): [3]"), text);
    assertTrue(text.contains("damaged journal bytes at byte " + frameStart(bytes, 2)), text);
    assertEquals("six", recovered(), "the newest record holds the whole state");
    try (Stream<Path> s = Files.list(traffic())) {
      Path aside =
          s.filter(p -> p.getFileName().toString().startsWith("damaged-")).findFirst().get();
      assertArrayEquals(bytes, Files.readAllBytes(aside.resolve("journal.log")), "copy kept");
    }
    assertFalse(StateRepair.repair(stateDir).changed(), "a second run finds nothing to repair");
  }

  @Test
  void aTornTailIsCutAndLoggedWithItsSize() throws IOException {
    commitAll(1000, "first", "second-state");
    Path journal = traffic().resolve("journal.log");
    byte[] whole = Files.readAllBytes(journal);
    // Only the last bytes of a complete frame are lost: a torn tail, not corruption.
    Files.write(journal, java.util.Arrays.copyOf(whole, whole.length - 3));
    List<String> logged = new ArrayList<>();
    Logger jul = Logger.getLogger(JournalFile.class.getName());
    Handler h =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            logged.add(new java.util.logging.SimpleFormatter().formatMessage(r));
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(h);
    try {
      assertEquals("first", recovered());
    } finally {
      jul.removeHandler(h);
    }
    int torn = whole.length - 3 - frameStart(whole, 1);
    assertEquals(1, logged.size(), logged.toString());
    assertTrue(logged.get(0).contains("cut a torn tail of " + torn + " bytes"), logged.get(0));
  }

  @Test
  void aSnapshotDeletedAfterCompactionIsAnErrorNotAFreshInstall() throws IOException {
    commitAll(3, "a", "b", "c"); // compacted: the journal is empty, the snapshot holds c
    assertEquals(0, Files.size(traffic().resolve("journal.log")));
    Files.delete(traffic().resolve("snapshot.bin"));
    StateCorruptException e = assertThrows(StateCorruptException.class, this::recovered);
    assertTrue(e.getMessage().contains("snapshot.bin is missing"), e.getMessage());
    assertTrue(e.getMessage().contains("sluice state repair"), e.getMessage());
  }

  @Test
  void aJournalStartingAfterAMissingSnapshotIsAnError() throws IOException {
    commitAll(3, "a", "b", "c", "d");
    Files.delete(traffic().resolve("snapshot.bin"));
    Files.delete(traffic().resolve(StoreMarker.FILE)); // even without the marker
    StateCorruptException e = assertThrows(StateCorruptException.class, this::recovered);
    assertTrue(e.getMessage().contains("starts at record 4"), e.getMessage());
    assertTrue(StateRepair.repair(stateDir).changed());
    assertEquals("d", recovered());
  }

  @Test
  void aMarkerOverwrittenWithGarbageIsRefusedAndRepairRewritesIt() throws IOException {
    commitAll(3, "a", "b", "c", "d"); // compacted through c, d in the journal
    Files.write(traffic().resolve(StoreMarker.FILE), new byte[] {'x', 0, 1, '\n'});
    IOException e = assertThrows(IOException.class, this::recovered);
    assertTrue(e.getMessage().contains(StoreMarker.FILE + " is damaged"), e.getMessage());
    assertEquals(
        "x\0\1\n",
        Files.readString(traffic().resolve(StoreMarker.FILE), UTF_8),
        "the refused marker is left as it was");
    assertTrue(StateRepair.repair(stateDir).changed());
    assertEquals("d", recovered());
  }

  @Test
  void aFreshInstallIsRecognisedByItsMarker() throws IOException {
    assertEquals(null, recovered());
    assertTrue(Files.exists(traffic().resolve(StoreMarker.FILE)), "marker written at creation");
    assertEquals(null, recovered(), "reopening an empty, marked store is fine");
  }

  @Test
  void aDirectoryOfThePreviousReleaseStillLoads() throws IOException {
    commitAll(2, "a", "b", "c");
    // The first release wrote no marker.
    Files.delete(traffic().resolve(StoreMarker.FILE));
    assertEquals("c", recovered());
    assertTrue(Files.exists(traffic().resolve(StoreMarker.FILE)), "marker added on first open");
    Files.delete(traffic().resolve("snapshot.bin"));
    assertThrows(StateCorruptException.class, this::recovered, "and now protects it");
  }

  @Test
  void aWriteThatFailsHalfWayLeavesNoRecordBehind() throws IOException {
    commitAll(1000, "kept");
    Path journal = traffic().resolve("journal.log");
    long before = Files.size(journal);
    DiskWrites full =
        (file, out, bytes, off, len) -> {
          out.write(bytes, off, len / 2);
          throw new IOException("No space left on device");
        };
    try (FileDurableLog log = FileDurableLog.open(traffic(), 1000, full)) {
      IOException e = assertThrows(IOException.class, () -> log.commit("lost".getBytes(UTF_8)));
      assertTrue(StoreUnavailableException.isFull(e));
    }
    assertEquals(before, Files.size(journal), "the partial frame is cut at once");
    assertEquals("kept", recovered(), "the failed change never reappears");
  }

  @Test
  void aDamagedSnapshotIsRepairedFromTheNewestIntactJournalRecord() throws IOException {
    commitAll(3, "a", "b", "c", "d", "e"); // snapshot holds c, the journal d and e
    Path snap = traffic().resolve("snapshot.bin");
    byte[] b = Files.readAllBytes(snap);
    b[b.length - 1] ^= 1;
    Files.write(snap, b);
    StateCorruptException e = assertThrows(StateCorruptException.class, this::recovered);
    assertTrue(e.getMessage().contains("sluice state repair"), e.getMessage());
    String report = String.join("\n", StateRepair.repair(stateDir).lines());
    assertTrue(report.contains("snapshot.bin is unreadable and is not used"), report);
    assertTrue(report.contains("kept record 5 (from the journal)"), report);
    assertEquals("e", recovered());
  }
}
