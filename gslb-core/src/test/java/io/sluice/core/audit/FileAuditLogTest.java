package io.sluice.core.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.testing.ManualTicker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileAuditLogTest {
  static final Actor BOB = new Actor("bob", "operator");
  @TempDir Path dir;
  final ManualTicker ticker = new ManualTicker();

  private static AuditQuery all() {
    return new AuditQuery(null, null, null, null, 0, 1000);
  }

  @Test
  void appendsJsonLinesAndQueriesNewestFirstWithFiltersAndPaging() throws Exception {
    try (FileAuditLog log = FileAuditLog.open(dir, ticker)) {
      for (int i = 0; i < 10; i++) {
        ticker.advance(Duration.ofSeconds(1));
        log.append(
            i % 2 == 0 ? BOB : Actor.CONTROLLER,
            "set-weights",
            i < 5 ? "a.example.com." : "b.example.com.",
            "reason " + i,
            i,
            i + 1,
            Map.of("i", i));
      }
      List<AuditEvent> events = log.query(all());
      assertEquals(10, events.size());
      assertEquals(10, events.get(0).seq());
      assertEquals("reason 9", events.get(0).reason());
      assertEquals(9, events.get(0).versionBefore());
      assertEquals(10, events.get(0).versionAfter());

      assertEquals(5, log.query(new AuditQuery("a.example.com.", null, null, null, 0, 0)).size());
      assertEquals(5, log.query(new AuditQuery(null, "bob", null, null, 0, 0)).size());
      List<AuditEvent> page = log.query(new AuditQuery("b.example.com.", "bob", null, null, 1, 1));
      assertEquals(1, page.size());
      assertEquals(7, page.get(0).seq(), "b-service bob events are 9, 7, 5; page 2 of size 1");
      long t4 = events.get(6).timeMillis(); // seq 4
      assertEquals(
          List.of(6L, 5L, 4L),
          log.query(new AuditQuery(null, null, t4, t4 + 2000, 0, 0)).stream()
              .map(AuditEvent::seq)
              .toList());
    }
    List<String> lines = Files.readAllLines(dir.resolve("audit.jsonl"));
    assertEquals(10, lines.size());
    assertTrue(lines.get(0).startsWith("{\"seq\":1,"), lines.get(0));
  }

  @Test
  void sequenceContinuesAfterReopenAndATornLineIsCutOff() throws Exception {
    try (FileAuditLog log = FileAuditLog.open(dir, ticker)) {
      log.append(BOB, "freeze", null, "x", 1, 2, Map.of());
      log.append(BOB, "unfreeze", null, "y", 2, 3, Map.of());
    }
    Files.writeString(
        dir.resolve("audit.jsonl"), "{\"seq\":3,\"actor\":\"bo", StandardOpenOption.APPEND);
    try (FileAuditLog log = FileAuditLog.open(dir, ticker)) {
      assertEquals(2, log.lastSeq());
      assertEquals(3, log.append(BOB, "freeze", null, "z", 3, 4, Map.of()));
      assertEquals(List.of(3L, 2L, 1L), log.query(all()).stream().map(AuditEvent::seq).toList());
    }
    String text = Files.readString(dir.resolve("audit.jsonl"), StandardCharsets.UTF_8);
    assertEquals(3, text.lines().count());
  }

  @Test
  void rotatesBySizeKeepsTheNewestFilesAndQueriesAcrossThem() throws Exception {
    try (FileAuditLog log = FileAuditLog.open(dir, ticker, 2048, 3)) {
      for (int i = 0; i < 60; i++) {
        log.append(BOB, "drain", null, "rotation test " + i, i, i + 1, Map.of("n", i));
      }
      long files;
      try (Stream<Path> s = Files.list(dir)) {
        files = s.count();
      }
      assertEquals(3, files, "the current file plus two rotated ones");
      List<AuditEvent> events = log.query(all());
      assertEquals(60, events.get(0).seq());
      assertTrue(events.size() < 60, "the oldest were deleted");
      for (int i = 1; i < events.size(); i++) {
        assertEquals(events.get(i - 1).seq() - 1, events.get(i).seq(), "contiguous newest first");
      }
    }
    try (FileAuditLog log = FileAuditLog.open(dir, ticker, 2048, 3)) {
      assertEquals(60, log.lastSeq());
    }
  }

  @Test
  void indexedQueriesAgreeWithAFullReadAcrossRotationsAndNewAppends() throws Exception {
    String[] actors = {"bob", "ann", "we\"ird\\name", "controller"};
    String[] services = {"a.example.com.", "b.example.com.", null};
    try (FileAuditLog log = FileAuditLog.open(dir, ticker, 4096, 20)) {
      java.util.Random r = new java.util.Random(7);
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 60; i++) {
          log.append(
              new Actor(actors[r.nextInt(actors.length)], "operator"),
              "drain",
              services[r.nextInt(services.length)],
              "r",
              i,
              i + 1,
              Map.of());
        }
        List<AuditEvent> everything = log.query(all());
        for (String a : new String[] {"bob", "we\"ird\\name", "nobody"}) {
          for (String svc : new String[] {null, "a.example.com."}) {
            List<AuditEvent> expected =
                everything.stream()
                    .filter(e -> e.actor().equals(a))
                    .filter(e -> svc == null || svc.equals(e.service()))
                    .toList();
            assertEquals(
                expected, log.query(new AuditQuery(svc, a, null, null, 0, 1000)), a + "/" + svc);
          }
        }
      }
      try (Stream<Path> files = Files.list(dir)) {
        assertTrue(files.count() > 3, "the test spans rotated files");
      }
    }
  }

  @Test
  void aQueryNeverWaitsForTheAppendLock() throws Exception {
    try (FileAuditLog log = FileAuditLog.open(dir, ticker)) {
      log.append(BOB, "drain", "a.example.com.", "r", 1, 2, Map.of());
      var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
      try {
        // An append in progress holds this lock; before, every query queued behind it.
        synchronized (log) {
          var result = pool.submit(() -> log.query(new AuditQuery(null, "bob", null, null, 0, 10)));
          assertEquals(1, result.get(60, java.util.concurrent.TimeUnit.SECONDS).size());
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
