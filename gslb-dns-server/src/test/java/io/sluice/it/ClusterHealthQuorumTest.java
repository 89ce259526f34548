package io.sluice.it;

import static io.sluice.it.ClusterBackends.APP;
import static io.sluice.it.ClusterBackends.PRIMARY;
import static io.sluice.it.ClusterBackends.STANDBY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.it.SluiceCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 3 of the cluster: every node is a vantage. The primary's real backend answers 503 to the
 * probes of one node process only (told apart through {@code /proc}): that node's opinion,
 * published in etcd, is DOWN while the two others say UP, and nothing switches. When it answers 503
 * to two of the three, the quorum says DOWN on every node and the failover happens everywhere.
 */
class ClusterHealthQuorumTest {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String ENDPOINT = "primary/a";

  @TempDir Path dir;

  static String traffic() {
    return """
        mode: auto
        steps: [100]
        window: 1s
        cooldown: 0s
        gates: { requireUp: true, maxErrorRate: 1.0, minResults: 1 }
        """;
  }

  /** The opinion {@code node} published for the primary's endpoint in etcd, or "" when none. */
  static String opinion(SluiceCluster c, String node) throws Exception {
    for (Map.Entry<String, String> e : c.etcdKeys("health/").entrySet()) {
      if (e.getKey().contains(ENDPOINT) && e.getKey().endsWith("/" + node)) {
        return LiveNode.JSON
            .readTree(e.getValue())
            .path("opinion")
            .asText()
            .toUpperCase(Locale.ROOT);
      }
    }
    return "";
  }

  static String verdict(Node n) throws Exception {
    for (JsonNode e : n.get("/api/v1/pools/primary").json().path("endpoints")) {
      return e.path("verdict").asText();
    }
    return "";
  }

  @Test
  void oneVantageSeeingThePoolDownSwitchesNothingTwoOfThreeSwitchEveryNode() throws Exception {
    assumeTrue(PeerProcess.supported(), "SKIPPED: needs Linux /proc to tell probes apart");
    List<String> subnets = SluiceCluster.subnets(ClusterCommandsTest.CLIENTS);
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir, b.body(traffic()))) {
      Node ns1 = c.node(0);
      Node ns2 = c.node(1);
      c.awaitAll("the primary up on every node", BOUND, n -> verdict(n).equals("up"));
      c.awaitAll("every vantage's UP opinion in etcd", BOUND, n -> opinion(c, n.name).equals("UP"));

      // One vantage of three sees the primary down.
      b.primary.refuse(SluiceCluster.pids(ns1));
      c.awaitAll("ns1's DOWN opinion in etcd", BOUND, n -> opinion(c, "ns1").equals("DOWN"));
      // Let the two others go on saying UP for several more probe rounds (200 ms apart).
      long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < until) {
        assertEquals("DOWN", opinion(c, "ns1"));
        assertEquals("UP", opinion(c, "ns2"));
        assertEquals("UP", opinion(c, "ns3"));
        Thread.sleep(200);
      }
      for (Node n : c.nodes()) {
        assertEquals("up", verdict(n), n + ": one vantage of three is no quorum");
        assertTrue(n.answersAll(APP, subnets, List.of(PRIMARY)), n + " still answers the primary");
        assertEquals(0, n.switches(APP).size(), n + ": no switch: " + n.switches(APP));
      }

      // Two of three: the quorum says DOWN, and every node fails over.
      b.primary.refuse(SluiceCluster.pids(ns1, ns2));
      c.awaitAll("the primary down on every node", BOUND, n -> verdict(n).equals("down"));
      c.awaitAll(
          "every node answers the standby",
          BOUND,
          n -> n.answersAll(APP, subnets.subList(0, 16), List.of(STANDBY)));
      for (Node n : c.nodes()) {
        assertTrue(n.answersAll(APP, subnets, List.of(STANDBY)), n + " answers the standby");
      }
      c.awaitAll(
          "the failover's switch record on every node",
          BOUND,
          n -> n.switches(APP).toString().contains("\"trigger\":\"failover\""));
      b.primary.refuse(Set.of());
    }
  }
}
