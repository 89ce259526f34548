package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.probe.persist.VerdictFile;
import io.sluice.probe.testing.HttpBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ColdStartAndReloadTest {
  @TempDir Path state;

  private static String health(HttpBackend http) {
    return "{ fullLink: { type: http, port: " + http.port() + ", path: /ready } }";
  }

  @Test
  void aFreshInstallSaysSoAndNeverAnswersAllDownBeforeTheFirstCheck() throws Exception {
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health(http))) {
      ProbeStatus st = h.service.status();
      assertTrue(st.freshInstall());
      assertTrue(st.history().startsWith("fresh install"), st.history());
      assertFalse(h.service.initialRoundComplete());
      EndpointHealth before = h.health();
      assertEquals(Verdict.UNKNOWN, before.verdict());
      assertTrue(before.verdict().usable() && before.stale(), before.toString());
      assertEquals(java.util.List.of("static"), st.uncheckedPools());
      EndpointHealth unchecked = h.store.current().health().get("static/s");
      assertEquals(Verdict.UP, unchecked.verdict());
      assertTrue(unchecked.reason().startsWith("no checks configured"), unchecked.reason());

      h.advance(Duration.ofSeconds(1));
      assertTrue(h.service.initialRoundComplete());
      assertTrue(h.service.awaitInitialRound());
      assertEquals(Verdict.UP, h.verdict());
      assertFalse(h.health().stale());
    }
  }

  @Test
  void lastKnownVerdictsAreRestoredStaleThenReplacedByFreshEvidence() throws Exception {
    try (HttpBackend http = new HttpBackend()) {
      try (ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health(http))) {
        h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
        http.stop();
        h.until(Verdict.DOWN, Duration.ofMillis(100), Duration.ofSeconds(40));
      }
      Path file = state.resolve(VerdictFile.NAME);
      assertTrue(Files.readString(file).contains("\"DOWN\""));
      assertFalse(Files.exists(state.resolve(VerdictFile.NAME + ".tmp")));

      http.restart();
      try (ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health(http))) {
        // Before any check: the last known verdict, marked stale. Not "all up".
        EndpointHealth restored = h.health();
        assertEquals(Verdict.DOWN, restored.verdict());
        assertTrue(restored.stale());
        assertTrue(restored.reason().startsWith("restored from the last run"), restored.reason());
        assertFalse(h.service.status().freshInstall());
        assertTrue(h.service.status().history().startsWith("restored 1 verdicts"));
        // The first fresh result replaces the restored verdict at once (no cooldown applies).
        h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(2));
        assertFalse(h.health().stale());
      }
    }
  }

  @Test
  void anUnreadableHistoryIsReportedAndStartsUnknown() throws Exception {
    Files.writeString(state.resolve(VerdictFile.NAME), "{ not json");
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health(http))) {
      assertTrue(h.service.status().history().contains("unreadable"), h.service.status().history());
      assertFalse(h.service.status().freshInstall());
      assertEquals(Verdict.UNKNOWN, h.verdict());
    }
  }

  @Test
  void aReloadReschedulesTargets() throws Exception {
    try (HttpBackend one = new HttpBackend();
        HttpBackend two = new HttpBackend()) {
      try (ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health(one))) {
        h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
        int before = one.requests();
        SluiceConfig next = ProbeHarness.config(state, "{ vantage: node-a }", health(two));
        h.store.update(s -> s.withConfig(next));
        h.advance(Duration.ofMinutes(2));
        assertEquals(before, one.requests(), "the old target is still checked");
        assertTrue(two.requests() > 0, "the new target is not checked");
        assertEquals(Verdict.UP, h.verdict());
        two.stop();
        h.until(Verdict.DOWN, Duration.ofMillis(100), Duration.ofSeconds(40));
        assertTrue(h.health().reason().contains(String.valueOf(two.port())), h.health().reason());
      }
    }
  }

  @Test
  void aReloadThatRemovesAnEndpointDropsItsHealth() throws Exception {
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, "{ vantage: node-a }", health(http))) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      String yaml =
          "stateDir: "
              + state
              + "\npools:\n  other:\n    endpoints:\n      - { name: x, address: 192.0.2.9 }\n"
              + "zones:\n  - origin: example.com.\n"
              + "    soa: { mname: ns1.example.com., rname: hostmaster.example.com. }\n"
              + "    ns: [ns1.example.com.]\n"
              + "    services:\n      - { name: app, pools: [other] }\n";
      SluiceConfig next = ConfigLoader.parse(yaml, "next.yaml", state);
      h.store.update(s -> s.withConfig(next));
      h.advance(Duration.ofSeconds(1));
      assertFalse(h.store.current().health().all().containsKey(ProbeHarness.ENDPOINT));
      assertEquals(Verdict.UP, h.store.current().health().verdict("other/x"));
      assertEquals(0, h.service.status().endpoints());
    }
  }
}
