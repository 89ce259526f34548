package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.AuditEvent;
import io.sluice.core.health.Verdict;
import io.sluice.probe.testing.HttpBackend;
import io.sluice.probe.testing.TcpBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Verdict timing against real local backends, on a manual clock. */
class VerdictTimingTest {
  @TempDir Path state;
  HttpBackend http;
  TcpBackend tcp;

  @BeforeEach
  void backends() {
    http = new HttpBackend();
    tcp = new TcpBackend();
  }

  @AfterEach
  void stop() {
    http.close();
    tcp.close();
  }

  private String layers(String extra) {
    return "{ heartbeat: { type: tcp, port: "
        + tcp.port()
        + " }, fullLink: { type: http, port: "
        + http.port()
        + ", path: /ready, expectJsonPointer: /db, expectJsonValue: ok, maxLatency: 400ms }"
        + extra
        + " }";
  }

  private ProbeHarness harness(String extra) throws Exception {
    return new ProbeHarness(state, "{ vantage: node-a }", layers(extra));
  }

  @Test
  void aStoppedBackendIsDownAfterExactlyThreeFullLinkFailuresWithinFifteenSeconds()
      throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      h.advance(Duration.ofMinutes(2));
      assertEquals(Verdict.UP, h.verdict());
      long failuresBefore = h.metrics.failures("fullLink");
      assertEquals(0, failuresBefore);

      http.stop();
      tcp.stop();
      Duration spent = Duration.ZERO;
      while (h.verdict() != Verdict.DOWN) {
        long fullLinkFailures = h.metrics.failures("fullLink");
        if (fullLinkFailures >= 3) {
          // The third failure decides; publishing is batched for up to 100 ms.
          h.advance(Duration.ofMillis(HealthEngine.PUBLISH_DELAY_MS));
          assertEquals(Verdict.DOWN, h.verdict(), "not down right after 3 full-link failures");
          break;
        }
        assertTrue(spent.compareTo(Duration.ofSeconds(15)) < 0, "not down within 15 s");
        h.advance(Duration.ofMillis(50));
        spent = spent.plus(Duration.ofMillis(50));
      }
      // Down on the third failure (the publish batch adds at most 100 ms), never on the second.
      assertEquals(3, h.metrics.failures("fullLink"));
      assertTrue(spent.compareTo(Duration.ofSeconds(15)) <= 0, "took " + spent);
      assertTrue(h.health().reason().contains("full-link failing"), h.health().reason());

      // The first "up" after start is not audited; the first event is the change to down.
      AuditEvent down = h.audit.actions("verdict-change").get(0);
      assertEquals("DOWN", down.details().get("to"));
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> evidence =
          (List<Map<String, Object>>) down.details().get("evidence");
      assertEquals("node-a", evidence.get(0).get("vantage"));
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> recent = (List<Map<String, Object>>) evidence.get(0).get("recent");
      assertTrue(
          recent.stream().anyMatch(r -> String.valueOf(r.get("error")).contains("refused")),
          recent.toString());
      // The event names the snapshots around the change: the one it replaced still served UP, the
      // one it published is the first to serve DOWN.
      assertEquals(Verdict.UP, h.verdictByVersion.get(down.versionBefore()));
      assertEquals(Verdict.DOWN, h.verdictByVersion.get(down.versionAfter()));
      assertEquals(h.firstVersionWith(Verdict.DOWN), down.versionAfter());
    }
  }

  @Test
  void slowPastTheLatencyBoundIsDown() throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      http.delay(600);
      h.until(Verdict.DOWN, Duration.ofSeconds(1), Duration.ofSeconds(45));
      assertTrue(h.health().reason().contains("bound is 400 ms"), h.health().reason());
      assertTrue(h.health().rttP99Millis() >= 0);
    }
  }

  @Test
  void twoHundredWithANotReadyBodyIsDown() throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      http.answer(200, "{\"status\":\"not ready\",\"db\":\"unreachable\"}");
      h.until(Verdict.DOWN, Duration.ofSeconds(1), Duration.ofSeconds(45));
      assertTrue(h.health().reason().contains("/db is 'unreachable'"), h.health().reason());
    }
  }

  @Test
  void aClosedHeartbeatPortWhileFullLinkPassesIsSuspectNeverDown() throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      tcp.stop();
      h.until(Verdict.SUSPECT, Duration.ofSeconds(1), Duration.ofSeconds(30));
      for (int i = 0; i < 30; i++) {
        h.advance(Duration.ofSeconds(10));
        assertEquals(Verdict.SUSPECT, h.verdict(), h.health().reason());
      }
      assertTrue(h.verdict().usable());
      assertEquals(
          1,
          h.audit.actions("verdict-change").stream()
              .filter(e -> "SUSPECT".equals(e.details().get("to")))
              .count());
    }
  }

  @Test
  void aRestoredBackendIsUpAfterTwoSuccessesAndNotBeforeTheCooldown() throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      http.stop();
      tcp.stop();
      h.until(Verdict.DOWN, Duration.ofMillis(100), Duration.ofSeconds(15));
      long downAt = h.health().sinceMillis();
      h.advance(Duration.ofSeconds(1));
      http.restart();
      tcp.restart();
      int okBefore = okFullLinks(h);
      // Still down through the cooldown, though the backend answers again.
      h.advance(Duration.ofSeconds(55));
      assertEquals(Verdict.DOWN, h.verdict());
      assertTrue(
          h.health().reason().startsWith("change to UP held back by cooldown"),
          h.health().reason());
      assertTrue(okFullLinks(h) - okBefore >= 2, "two successes already seen");
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(40));
      long upAt = h.health().sinceMillis();
      assertTrue(upAt - downAt >= 60_000, "up " + (upAt - downAt) + " ms after down");
      assertTrue(upAt - downAt <= 62_000, "up " + (upAt - downAt) + " ms after down");
    }
  }

  @Test
  void aBackendDyingRightAfterItsRecoveryBreaksTheCooldownQuickly() throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      http.stop();
      tcp.stop();
      h.until(Verdict.DOWN, Duration.ofMillis(100), Duration.ofSeconds(15));
      http.restart();
      tcp.restart();
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(70));
      // Three seconds into the new cooldown the backend dies again: six failures in a row
      // (fast rechecks every second) are overwhelming evidence, no need to wait 60 s.
      h.advance(Duration.ofSeconds(3));
      http.stop();
      tcp.stop();
      Duration took = h.until(Verdict.DOWN, Duration.ofMillis(100), Duration.ofSeconds(20));
      assertTrue(h.health().reason().contains("cooldown broken by 6"), h.health().reason());
      assertTrue(
          took.compareTo(Duration.ofSeconds(15)) <= 0,
          "took " + took + ": " + h.audit.actions("verdict-change").get(2).details());
    }
  }

  @Test
  void withoutCooldownUpStillNeedsTwoSuccesses() throws Exception {
    try (ProbeHarness h = harness(", cooldown: 0s")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      http.stop();
      h.until(Verdict.DOWN, Duration.ofMillis(100), Duration.ofSeconds(40));
      http.restart();
      int before = okFullLinks(h);
      while (h.verdict() == Verdict.DOWN && okFullLinks(h) - before < 2) {
        h.advance(Duration.ofMillis(50));
      }
      assertEquals(Verdict.DOWN, h.verdict(), "up before the second success");
      h.advance(Duration.ofMillis(HealthEngine.PUBLISH_DELAY_MS));
      assertEquals(Verdict.UP, h.verdict(), "not up right after the second success");
      assertEquals(2, okFullLinks(h) - before);
    }
  }

  private static int okFullLinks(ProbeHarness h) {
    return (int)
        h.metrics.checks.stream().filter(c -> c.kind().equals("fullLink") && c.ok()).count();
  }

  @Test
  void aFlappingBackendIsDampedAndHeld() throws Exception {
    try (ProbeHarness h = harness("")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      // Every full-link interval, flip the backend: with the 60 s cooldown it stays down.
      for (int i = 0; i < 40; i++) {
        if (i % 2 == 0) {
          http.stop();
        } else {
          http.restart();
        }
        h.advance(Duration.ofSeconds(30));
      }
      long changes = h.audit.actions("verdict-change").size();
      // 40 flips in 20 minutes: the cooldown and flap damping leave a handful of changes.
      assertTrue(changes <= 8, "verdict changes: " + changes);
      assertFalse(h.audit.actions("flap-hold").isEmpty(), "no flap-damping hold");

      // Flipping slower than the cooldown: flap damping holds it down.
      for (int i = 0; i < 24; i++) {
        if (i % 2 == 0) {
          http.restart();
        } else {
          http.stop();
        }
        h.advance(Duration.ofSeconds(75));
      }
      List<AuditEvent> holds = h.audit.actions("flap-hold");
      assertFalse(holds.isEmpty(), "no flap-damping hold");
      assertEquals("DOWN", holds.get(0).details().get("to"));
      long total = h.audit.actions("verdict-change").size();
      // 24 more flips in 30 minutes: held down, with doubling holds, nearly throughout.
      assertTrue(total - changes <= 3, "verdict changes: " + (total - changes));
    }
  }

  @Test
  void aHeldEndpointIsListedInStatus() throws Exception {
    try (ProbeHarness h = harness(", cooldown: 0s, flapLimit: 2, flapHoldDown: 5m")) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      for (int i = 0; i < 6 && h.service.status().held().isEmpty(); i++) {
        http.stop();
        h.until(Verdict.DOWN, Duration.ofMillis(200), Duration.ofSeconds(60));
        http.restart();
        h.advance(Duration.ofSeconds(40));
      }
      assertEquals(
          List.of(ProbeHarness.ENDPOINT),
          h.service.status().held().stream().map(ProbeStatus.HeldEndpoint::endpoint).toList());
      assertEquals(Verdict.DOWN, h.verdict());
      assertTrue(h.health().reason().contains("flap damping"), h.health().reason());
      assertNotEquals(0, h.audit.actions("flap-hold").size());
    }
  }
}
