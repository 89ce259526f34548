package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.Opinion;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.health.Verdict;
import io.sluice.probe.testing.HttpBackend;
import io.sluice.probe.testing.RecordingExchange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node of a three-node cluster: this node probes a real HTTP backend, the other two nodes'
 * opinions arrive through the exchange. The quorum is over all three; this node shares its own
 * opinion only when it changes.
 */
class ClusterQuorumTest {
  @TempDir Path state;

  private static final String EP = ProbeHarness.ENDPOINT;

  private SluiceConfig config(int port) throws Exception {
    String yaml =
        "stateDir: "
            + state
            + "\n"
            + "cluster:\n"
            + "  node: node-a\n"
            + "  region: eu\n"
            + "  etcd: { endpoints: [\"http://127.0.0.1:1\"] }\n"
            + "pools:\n"
            + "  p1:\n"
            + "    health: { fullLink: { type: http, port: "
            + port
            + ", path: /ready, interval: 1s } }\n"
            + "    endpoints:\n"
            + "      - { name: a, address: 127.0.0.1 }\n"
            + "zones:\n"
            + "  - origin: example.com.\n"
            + "    soa: { mname: ns1.example.com., rname: hostmaster.example.com. }\n"
            + "    ns: [ns1.example.com.]\n"
            + "    services:\n"
            + "      - { name: app, pools: [p1] }\n";
    return ConfigLoader.parse(yaml, "test.yaml", state);
  }

  private static Opinion remote(String node, Verdict v, String region, double rtt) {
    return new Opinion(EP, node, node, v, 3, true, region, rtt, 1);
  }

  @Test
  void oneNodeSeeingDownIsNoQuorumTwoAreAndOwnOpinionIsSharedOnChangeOnly() throws Exception {
    RecordingExchange ex = new RecordingExchange();
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, config(http.port()), ex)) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      assertEquals("node-a", h.service.status().vantage());

      // Node b sees the endpoint down, node c up: one of three is no quorum.
      ex.remote(remote("node-b", Verdict.DOWN, "us", 40));
      ex.remote(remote("node-c", Verdict.UP, "us", 30));
      h.advance(Duration.ofMinutes(2));
      assertEquals(Verdict.UP, h.verdict(), h.health().reason());
      assertTrue(h.health().reason().contains("1 down, 0 suspect, 2 up of 3"), h.health().reason());
      assertEquals(
          List.of("node-a", "node-b", "node-c"),
          h.service.status().vantages().stream()
              .map(ProbeStatus.VantageStatus::name)
              .sorted()
              .toList());

      // This node ran over a hundred checks but shared its opinion once, plus at most one RTT
      // refresh per 30 s: never raw results.
      List<Opinion> mine = ex.of("node-a");
      assertTrue(http.requests() >= 100, "checks ran: " + http.requests());
      assertTrue(mine.size() <= 1 + 120 / 30, mine.toString());
      assertTrue(mine.stream().allMatch(o -> o.opinion() == Verdict.UP), mine.toString());
      assertEquals("node-a", mine.get(0).via());
      assertEquals("eu", mine.get(0).region());
      int shared = mine.size();

      // Node c now sees it down too: two of three.
      ex.remote(remote("node-c", Verdict.DOWN, "us", Double.NaN));
      h.advance(Duration.ofMillis(200));
      assertEquals(Verdict.DOWN, h.verdict(), h.health().reason());
      assertEquals(shared, ex.of("node-a").size(), "this node's own opinion did not change");

      // Node b dies: its opinion expires with its lease; one of two says down is no majority.
      ex.expire(EP, "node-b");
      h.advance(Duration.ofSeconds(61));
      assertEquals(Verdict.UP, h.verdict(), h.health().reason());
    }
  }

  @Test
  void aCutOffNodeHoldsItsVerdictsAndResumesOnReconnect() throws Exception {
    RecordingExchange ex = new RecordingExchange();
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, config(http.port()), ex)) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      ex.remote(remote("node-b", Verdict.UP, null, 5));
      ex.remote(remote("node-c", Verdict.UP, null, 5));
      h.advance(Duration.ofSeconds(1));

      ex.connected(false, 1234);
      // Cut off, this node alone sees the backend fail: its own evidence never moves an answer.
      http.answer(503, "down");
      h.advance(Duration.ofMinutes(2));
      assertEquals(Verdict.UP, h.verdict(), h.health().reason());
      ProbeStatus.Exchange st = h.service.status().exchange();
      assertTrue(st.shared());
      assertFalse(st.connected());
      assertEquals(1234, st.sinceMillis());
      assertTrue(st.note().contains("held"), st.note());
      long versionsCut = h.store.current().version();

      // Reconnected: the others see it down as well now, and the verdict follows the quorum.
      ex.replaced(
          List.of(
              remote("node-b", Verdict.DOWN, null, Double.NaN),
              remote("node-c", Verdict.UP, null, 5)));
      ex.connected(true, 5678);
      h.advance(Duration.ofMillis(200));
      assertEquals(Verdict.DOWN, h.verdict(), h.health().reason());
      assertTrue(h.store.current().version() > versionsCut);
      assertTrue(h.service.status().exchange().connected());
      // The opinion this node formed while cut off was handed to the exchange to publish.
      assertEquals(Verdict.DOWN, ex.of("node-a").get(ex.of("node-a").size() - 1).opinion());
    }
  }

  @Test
  void anAgentsOpinionIsSharedByTheNodeItReportsToAndWithdrawnWhenItGoesStale() throws Exception {
    RecordingExchange ex = new RecordingExchange();
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, config(http.port()), ex)) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      for (int i = 0; i < 3; i++) {
        h.service
            .reportSink()
            .accept(
                new ProbeReport(
                    "ams-probe",
                    h.clock.ticker().currentTimeMillis(),
                    List.of(new ProbeReport.Result(EP, "fullLink", false, 3.0, "status 503"))));
        h.advance(Duration.ofSeconds(1));
      }
      List<Opinion> agent = ex.of("ams-probe");
      assertEquals(1, agent.size(), agent.toString());
      assertEquals(Verdict.DOWN, agent.get(0).opinion());
      assertEquals("node-a", agent.get(0).via());

      // The agent falls silent: once its results are stale the node withdraws its opinion.
      int before = ex.published.size();
      h.advance(Duration.ofSeconds(100));
      assertTrue(ex.published.subList(before, ex.published.size()).contains(null));
      assertEquals(1, ex.of("ams-probe").size());
    }
  }

  @Test
  void rttIsRefreshedAtMostEvery30sAndOnlyWhenItMovedMaterially() throws Exception {
    RecordingExchange ex = new RecordingExchange();
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, config(http.port()), ex)) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      List<Integer> refreshedAt = new ArrayList<>();
      // Three minutes as they are. The RTTs are real loopback round trips, so a stall of the
      // machine may move their median; what must hold is the rule: a refresh comes at least 30 s
      // after the last write and only for a move of 5 ms and 20 %, never for the noise between.
      int first = ex.of("node-a").size();
      observe(h, ex, 0, 18, refreshedAt);
      List<Opinion> quiet = ex.of("node-a");
      // The first opinion may itself fall in this phase; it is a write, not a refresh.
      int lastWrite = first == 0 && !refreshedAt.isEmpty() ? refreshedAt.remove(0) : 0;
      for (int t : refreshedAt) {
        assertTrue(t - lastWrite >= 30, "refreshed within 30 s of the last write: " + refreshedAt);
        lastWrite = t;
      }
      for (int k = Math.max(1, first); k < quiet.size(); k++) {
        double was = quiet.get(k - 1).rttMillis();
        double now = quiet.get(k).rttMillis();
        double moved = Math.abs(now - was);
        assertTrue(moved >= 5 && moved >= 0.2 * was, "refreshed without a material move: " + quiet);
      }
      int before = quiet.size();

      // The backend slows down by 60 ms: the median moves, and refreshes carry it, 30 s apart.
      http.delay(60);
      refreshedAt.clear();
      observe(h, ex, 180, 18, refreshedAt);
      List<Opinion> mine = ex.of("node-a");
      assertTrue(mine.size() > before, mine.toString());
      for (int k = 1; k < refreshedAt.size(); k++) {
        assertTrue(refreshedAt.get(k) - refreshedAt.get(k - 1) >= 30, refreshedAt.toString());
      }
      Opinion last = mine.get(mine.size() - 1);
      assertTrue(last.rttMillis() >= 50, mine.toString());
      assertEquals(Verdict.UP, last.opinion());
      assertEquals(mine.get(0).sinceMillis(), last.sinceMillis(), "same opinion, same since");
    }
  }

  /** Advances {@code steps} × 10 s, noting when (seconds, from {@code t0}) an opinion went out. */
  private static void observe(
      ProbeHarness h, RecordingExchange ex, int t0, int steps, List<Integer> at) {
    int seen = ex.of("node-a").size();
    for (int k = 1; k <= steps; k++) {
      h.advance(Duration.ofSeconds(10));
      int n = ex.of("node-a").size();
      assertTrue(n - seen <= 1, "two writes within 10 s: " + ex.of("node-a"));
      if (n > seen) {
        at.add(t0 + k * 10);
      }
      seen = n;
    }
  }

  @Test
  void rttMeasuredFromARegionIsExposedPerRegion() throws Exception {
    RecordingExchange ex = new RecordingExchange();
    try (HttpBackend http = new HttpBackend();
        ProbeHarness h = new ProbeHarness(state, config(http.port()), ex)) {
      h.until(Verdict.UP, Duration.ofMillis(100), Duration.ofSeconds(5));
      ex.remote(remote("node-b", Verdict.UP, "us", 42.0));
      ex.remote(remote("node-c", Verdict.UP, "us", 80.0));
      ex.remote(remote("agent-x", Verdict.UP, null, 1.0));
      h.advance(Duration.ofSeconds(6));
      assertEquals(42.0, h.health().rttFrom("us"));
      assertTrue(Double.isFinite(h.health().rttFrom("eu")), h.health().toString());
      assertTrue(Double.isNaN(h.health().rttFrom("ap")));
      assertEquals(2, h.health().regionRttMillis().size(), h.health().toString());
    }
  }
}
