package io.sluice.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDurableLogTest {
  @TempDir Path dir;

  private String recovered() throws IOException {
    try (FileDurableLog log = FileDurableLog.open(dir, 1000)) {
      return log.recover().map(b -> new String(b, UTF_8)).orElse(null);
    }
  }

  private void commitAll(int compactEvery, String... states) throws IOException {
    try (FileDurableLog log = FileDurableLog.open(dir, compactEvery)) {
      for (String s : states) {
        log.commit(s.getBytes(UTF_8));
      }
    }
  }

  @Test
  void emptyDirectoryRecoversNothing() throws IOException {
    assertEquals(null, recovered());
  }

  @Test
  void recoversTheLastCommittedRecord() throws IOException {
    commitAll(1000, "one", "two", "three");
    assertEquals("three", recovered());
    commitAll(1000, "four");
    assertEquals("four", recovered());
  }

  @Test
  void compactionWritesASnapshotAndEmptiesTheJournal() throws IOException {
    commitAll(3, "a", "b", "c", "d");
    assertTrue(Files.exists(dir.resolve("snapshot.bin")));
    assertTrue(Files.size(dir.resolve("journal.log")) > 0, "d is in the new journal");
    assertEquals("d", recovered());
    commitAll(3, "e", "f");
    assertEquals(0, Files.size(dir.resolve("journal.log")));
    assertEquals("f", recovered());
    assertFalse(Files.exists(dir.resolve("snapshot.bin.tmp")));
  }

  @Test
  void aCrashBetweenSnapshotAndJournalResetKeepsTheNewest() throws IOException {
    commitAll(1000, "a", "b", "c");
    byte[] journal = Files.readAllBytes(dir.resolve("journal.log"));
    commitAll(1, "d"); // snapshot holds d, journal emptied
    // Put back the old journal, as if the crash came before the reset reached the disk.
    Files.write(dir.resolve("journal.log"), journal);
    assertEquals("d", recovered(), "older journal records never override a newer snapshot");
  }

  @Test
  void aTornLastRecordIsIgnoredAtEveryCutPoint() throws IOException {
    commitAll(1000, "first", "second-state");
    Path journal = dir.resolve("journal.log");
    byte[] whole = Files.readAllBytes(journal);
    int lastFrame = RecordCodec.HEADER + 8 + "second-state".length();
    for (int cut = whole.length - lastFrame + 1; cut < whole.length; cut++) {
      byte[] torn = java.util.Arrays.copyOf(whole, cut);
      Files.write(journal, torn);
      assertEquals("first", recovered(), "cut at " + cut);
      assertEquals(whole.length - lastFrame, Files.size(journal), "the torn tail is cut off");
    }
    // The log keeps working after the cut.
    commitAll(1000, "third");
    assertEquals("third", recovered());
  }

  @Test
  void aCorruptLastRecordIsIgnored() throws IOException {
    commitAll(1000, "good", "bad");
    Path journal = dir.resolve("journal.log");
    try (RandomAccessFile f = new RandomAccessFile(journal.toFile(), "rw")) {
      f.seek(f.length() - 1);
      f.write('X');
    }
    try (FileDurableLog log = FileDurableLog.open(dir, 1000)) {
      assertEquals("good", new String(log.recover().orElseThrow(), UTF_8));
      assertTrue(log.tornBytes() > 0);
    }
  }

  @Test
  void garbageAppendedAfterTheLastRecordIsIgnored() throws IOException {
    commitAll(1000, "kept");
    Files.write(
        dir.resolve("journal.log"),
        new byte[] {0x53, 0x4c, 0x4a, 0x31, 0x7f, 0, 0, 0},
        java.nio.file.StandardOpenOption.APPEND);
    assertEquals("kept", recovered());
  }

  @Test
  void aSecondOpenOfTheSameDirectoryIsRefused() throws IOException {
    try (FileDurableLog first = FileDurableLog.open(dir)) {
      first.commit("x".getBytes(UTF_8));
      IOException e = assertThrows(IOException.class, () -> FileDurableLog.open(dir));
      assertTrue(e.getMessage().contains("in use"), e.getMessage());
    }
    assertEquals("x", recovered(), "free again once closed");
  }

  @Test
  void aDamagedSnapshotIsAnError() throws IOException {
    commitAll(1, "a");
    Path snap = dir.resolve("snapshot.bin");
    byte[] b = Files.readAllBytes(snap);
    b[b.length - 1] ^= 1;
    Files.write(snap, b);
    IOException e = assertThrows(IOException.class, () -> FileDurableLog.open(dir));
    assertTrue(e.getMessage().contains("damaged"));
    b[b.length - 1] ^= 1; // repaired by hand
    Files.write(snap, b);
    assertEquals("a", recovered(), "a failed open leaves the directory unlocked");
  }
}
