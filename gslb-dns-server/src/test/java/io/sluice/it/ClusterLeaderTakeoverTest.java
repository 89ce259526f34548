package io.sluice.it;

import static io.sluice.it.ClusterBackends.APP;
import static io.sluice.it.ClusterBackends.PRIMARY;
import static io.sluice.it.ClusterBackends.STANDBY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.it.SluiceCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 2 of the cluster: the leader, which runs the failover ramp of {@code app} (steps 25, 50,
 * 100), is killed with SIGKILL while the ramp is at its first step. Another node takes over and
 * continues from that step: the switch record has each step exactly once, in order, every step
 * after its predecessor's window, and the audit has each step once. The takeover time (kill to a
 * new leader listed) is measured and printed, never asserted.
 */
class ClusterLeaderTakeoverTest {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final long WINDOW_MILLIS = 4000;

  @TempDir Path dir;

  static String traffic() {
    return """
        mode: auto
        steps: [25, 50, 100]
        window: %dms
        cooldown: 60s
        shiftTtl: 5
        ttlMargin: 1s
        # Not what this test is about: the steps advance on time alone.
        gates: { requireUp: true, maxErrorRate: 1.0, minResults: 1 }
        """
        .formatted(WINDOW_MILLIS);
  }

  /** The failover shift's percent in the node's view of {@code app}, 0 when there is none. */
  static double failoverPercent(Node n) throws Exception {
    for (JsonNode s : n.service(APP).path("shifts")) {
      if (s.path("id").asText().startsWith("failover")) {
        return s.path("percent").asDouble();
      }
    }
    return 0;
  }

  @Test
  void aLeaderKilledMidRampIsSucceededByANodeThatContinuesFromTheSameStep() throws Exception {
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir, b.body(traffic()))) {
      c.awaitAll(
          "app answered from primary", BOUND, n -> n.answer(APP, null).equals(List.of(PRIMARY)));
      c.awaitAll("a leader every node agrees on", BOUND, n -> c.leader() != null);
      Node leader = c.leader();
      assertNotNull(leader);

      b.primary.kill();
      c.awaitAll("the failover ramp's first step", BOUND, n -> failoverPercent(n) == 25.0);
      double atKill = failoverPercent(leader);
      long killed = System.nanoTime();
      leader.kill();
      assertTrue(atKill < 100, "the ramp was still running when its leader died: " + atKill);

      c.awaitAll(
          "a new leader",
          BOUND,
          n -> {
            Node l = c.leader();
            return l != null && l != leader;
          });
      SluiceCluster.measured(
          "leader takeover, SIGKILL to a new leader listed",
          (System.nanoTime() - killed) / 1_000_000);
      assertNotEquals(leader, c.leader());

      c.awaitAll("the failover ramp completed", BOUND, n -> failoverPercent(n) == 100.0);
      c.awaitAll(
          "the ramp settled", BOUND, n -> n.service(APP).path("shifts").size() > 0 && settled(n));
      for (Node n : c.live()) {
        assertEquals(List.of(STANDBY), n.answer(APP, "10.0.0.0/24"), n + " answers the standby");
      }

      Node survivor = c.live().get(0);
      JsonNode record = null;
      for (JsonNode r : survivor.switches(APP)) {
        if (r.path("trigger").asText().equals("failover")) {
          assertTrue(record == null, "one failover switch record: " + survivor.switches(APP));
          record = r;
        }
      }
      assertNotNull(record, "a failover switch record");
      List<Double> percents = new ArrayList<>();
      List<Long> times = new ArrayList<>();
      for (JsonNode s : record.path("steps")) {
        if (s.path("event").asText().equals("step")) {
          percents.add(s.path("percent").asDouble());
          times.add(s.path("atMillis").asLong());
        }
      }
      assertEquals(List.of(25.0, 50.0, 100.0), percents, "each step once, in order: " + record);
      for (int i = 1; i < times.size(); i++) {
        assertTrue(
            times.get(i) - times.get(i - 1) >= WINDOW_MILLIS,
            "step " + percents.get(i) + " came after its predecessor's window: " + record);
      }
      int fifty = 0;
      for (JsonNode e : survivor.audit()) {
        if (e.toString().contains(" at 50 % (step")) {
          fifty++;
        }
      }
      assertEquals(1, fifty, "the 50% step audited once across the cluster");
    }
  }

  private static boolean settled(Node n) throws Exception {
    JsonNode status = n.get("/api/v1/status").json();
    for (JsonNode s : status.path("services")) {
      if (s.path("service").asText().equals(APP)) {
        return s.path("ramp").isNull() || s.path("ramp").isMissingNode();
      }
    }
    fail("no status for " + APP + " on " + n);
    return false;
  }
}
