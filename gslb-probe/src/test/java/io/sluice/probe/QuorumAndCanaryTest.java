package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.AuditEvent;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.health.Verdict;
import io.sluice.probe.testing.HttpBackend;
import io.sluice.probe.testing.TcpBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three vantages: this node probing real backends, and two remote vantages reporting through the
 * sink, as the admin API's report route does.
 */
class QuorumAndCanaryTest {
  @TempDir Path state;

  private static void report(
      ProbeHarness h, String vantage, boolean ok, boolean canaryOk, String canary) {
    long now = h.clock.ticker().currentTimeMillis();
    h.service
        .reportSink()
        .accept(
            new ProbeReport(
                vantage,
                now,
                List.of(
                    new ProbeReport.Result(
                        ProbeHarness.ENDPOINT, "fullLink", ok, 4.0, ok ? null : "status 503"),
                    new ProbeReport.Result(
                        canary, "canary", canaryOk, 1.0, canaryOk ? null : "timeout"))));
  }

  @Test
  void splitBrainNeedsAQuorumAndABrokenPathNeverVotes() throws Exception {
    try (HttpBackend http = new HttpBackend();
        TcpBackend canaryServer = new TcpBackend()) {
      String canary = "127.0.0.1:" + canaryServer.port();
      String health = "{ fullLink: { type: http, port: " + http.port() + ", path: /ready } }";
      try (ProbeHarness h =
          new ProbeHarness(state, "{ vantage: node-a, canaries: [\"" + canary + "\"] }", health)) {
        h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));

        // Vantage b loses its path to the pool and its canary: it does not count at all.
        for (int i = 0; i < 5; i++) {
          report(h, "b", false, false, canary);
          report(h, "c", true, true, canary);
          h.advance(Duration.ofSeconds(1));
        }
        assertEquals(Verdict.UP, h.verdict(), h.health().reason());
        assertTrue(h.metrics.pathEvents.contains("b impaired"), h.metrics.pathEvents.toString());
        assertEquals(1, h.audit.actions("probe-path-impaired").size());
        assertFalse(
            h.service.status().vantages().stream()
                .filter(v -> v.name().equals("b"))
                .findFirst()
                .orElseThrow()
                .pathOk());

        // b's path is back but b alone sees the endpoint down: one of three is no quorum.
        for (int i = 0; i < 5; i++) {
          report(h, "b", false, true, canary);
          report(h, "c", true, true, canary);
          h.advance(Duration.ofSeconds(1));
        }
        assertEquals(Verdict.UP, h.verdict(), h.health().reason());
        assertTrue(h.metrics.pathEvents.contains("b restored"));

        // Two of three see it down (this node still sees it up): down.
        for (int i = 0; i < 3; i++) {
          report(h, "b", false, true, canary);
          report(h, "c", false, true, canary);
          h.advance(Duration.ofSeconds(1));
        }
        assertEquals(Verdict.DOWN, h.verdict());
        assertTrue(
            h.health().reason().contains("2 down, 0 suspect, 1 up of 3 vantages (quorum 2)"),
            h.health().reason());

        // b and c go quiet: their results go stale and drop out; this node alone sees it up.
        h.until(Verdict.UP, Duration.ofSeconds(5), Duration.ofMinutes(3));
        assertTrue(h.health().reason().contains("1 up of 1 vantage"), h.health().reason());
        assertTrue(
            h.service.status().vantages().stream()
                .filter(v -> !v.name().equals("node-a"))
                .noneMatch(ProbeStatus.VantageStatus::fresh));
      }
    }
  }

  @Test
  void whenThisNodesCanaryFailsItsFailuresDoNotTakeTheEndpointDown() throws Exception {
    try (HttpBackend http = new HttpBackend();
        TcpBackend canaryServer = new TcpBackend()) {
      String canary = "127.0.0.1:" + canaryServer.port();
      String health = "{ fullLink: { type: http, port: " + http.port() + ", path: /ready } }";
      try (ProbeHarness h =
          new ProbeHarness(state, "{ vantage: node-a, canaries: [\"" + canary + "\"] }", health)) {
        h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
        // The whole path is cut: canary and backend fail together.
        canaryServer.stop();
        h.advance(Duration.ofSeconds(6));
        http.stop();
        h.advance(Duration.ofMinutes(2));
        assertEquals(Verdict.UP, h.verdict());
        assertTrue(h.health().stale(), "evidence should be marked stale");
        assertTrue(h.metrics.pathEvents.contains("node-a impaired"));
        // The path comes back while the backend stays dead: now it goes down.
        canaryServer.restart();
        h.until(Verdict.DOWN, Duration.ofSeconds(1), Duration.ofSeconds(40));
      }
    }
  }

  @Test
  void aPathEventThatChangesNoHealthNamesNoNewSnapshot() throws Exception {
    try (TcpBackend canaryServer = new TcpBackend()) {
      String canary = "127.0.0.1:" + canaryServer.port();
      // No checks on the pool: the canary's failure is audited but changes no endpoint's health.
      try (ProbeHarness h =
          new ProbeHarness(state, "{ vantage: node-a, canaries: [\"" + canary + "\"] }", "{}")) {
        h.advance(Duration.ofSeconds(5));
        long version = h.store.current().version();
        canaryServer.stop();
        Duration spent = Duration.ZERO;
        while (h.audit.actions("probe-path-impaired").isEmpty()) {
          assertTrue(spent.compareTo(Duration.ofMinutes(2)) < 0, "no path event in 2 min");
          h.advance(Duration.ofSeconds(1));
          spent = spent.plus(Duration.ofSeconds(1));
        }
        AuditEvent impaired = h.audit.actions("probe-path-impaired").get(0);
        assertEquals(version, h.store.current().version(), "nothing was published");
        assertEquals(version, impaired.versionBefore());
        assertEquals(version, impaired.versionAfter());
      }
    }
  }

  @Test
  void twentyPercentRandomFailuresNeverMakeAHealthyTargetDown() throws Exception {
    // Seed 20261129, 3 simulated hours: each request fails with probability 0.2.
    try (HttpBackend http = new HttpBackend()) {
      http.failRandomly(0.2, 20261129L);
      String health =
          "{ heartbeat: { type: http, port: "
              + http.port()
              + ", path: /ping },"
              + " fullLink: { type: http, port: "
              + http.port()
              + ", path: /ready } }";
      try (ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health)) {
        for (int i = 0; i < 180; i++) {
          h.advance(Duration.ofMinutes(1));
          assertTrue(
              h.verdict() != Verdict.DOWN, "down at minute " + i + ": " + h.health().reason());
        }
        long failedTries = http.requests() - h.metrics.checks.stream().filter(c -> c.ok()).count();
        assertTrue(h.metrics.checks.size() > 2000, "checks run: " + h.metrics.checks.size());
        assertTrue(failedTries > 300, "failed requests: " + failedTries);
        assertEquals(
            0,
            h.audit.actions("verdict-change").stream()
                .filter(e -> "DOWN".equals(e.details().get("to")))
                .count());
        assertTrue(h.health().errorRate() < 0.1, "error rate " + h.health().errorRate());
      }
    }
  }
}
