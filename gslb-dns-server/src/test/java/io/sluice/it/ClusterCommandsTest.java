package io.sluice.it;

import static io.sluice.it.ClusterBackends.BLUE;
import static io.sluice.it.ClusterBackends.GREEN;
import static io.sluice.it.ClusterBackends.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.it.LiveNode.Reply;
import io.sluice.it.SluiceCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 1 of the cluster: a real 3-member etcd and three Sluice nodes (child processes). A
 * weight change, a drain, a move and its rollback, and a freeze, each sent to one node, are
 * answered by all three, identically for 1,000 client subnets (ECS). The time from sending each
 * command until every node answers it over DNS is measured and printed, never asserted.
 */
class ClusterCommandsTest {
  static final int CLIENTS = 1000;
  static final Duration BOUND = Duration.ofSeconds(60);
  private static final String SVC = "/api/v1/services/web.example.test";

  @TempDir Path dir;

  /** A few clients watched while waiting; all 1,000 are compared once every node has answered. */
  static List<String> witnesses(List<String> subnets) {
    return List.of(
        subnets.get(0), subnets.get(137), subnets.get(401), subnets.get(666), subnets.get(999));
  }

  @Test
  void commandsThroughOneNodeAreAnsweredByAllThreeForEveryClient() throws Exception {
    List<String> subnets = SluiceCluster.subnets(CLIENTS);
    List<String> watch = witnesses(subnets);
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir, b.body())) {
      Node ns1 = c.node(0);
      Node ns2 = c.node(1);
      Node ns3 = c.node(2);
      c.awaitAll("web answered from both pools", BOUND, n -> bothPools(n, subnets));
      assertEquals(List.of(), c.differences(WEB, subnets), "identical answers to begin with");
      // Each node names itself in NSID (its --nsid), though the configuration is shared.
      assertEquals(
          List.of("ns1", "ns2", "ns3"), List.of(ns1.nsid(WEB), ns2.nsid(WEB), ns3.nsid(WEB)));

      // A weight change through ns1: green becomes a standby, every client gets blue.
      long t = System.nanoTime();
      Reply weights =
          ns1.put(
              SVC + "/weights", "{\"weights\":{\"blue\":1,\"green\":0},\"reason\":\"it-weights\"}");
      assertEquals(200, weights.status(), weights.body());
      awaitEverywhere(c, t, "weight change through ns1", watch, List.of(BLUE));
      assertEveryClient(c, subnets, List.of(BLUE));

      // A drain through ns2: every client moves to green, and back with the undrain.
      t = System.nanoTime();
      Reply drain = ns2.post("/api/v1/pools/blue/drain", "{\"reason\":\"it-drain\"}");
      assertEquals(200, drain.status(), drain.body());
      awaitEverywhere(c, t, "drain through ns2", watch, List.of(GREEN));
      assertEveryClient(c, subnets, List.of(GREEN));
      Reply undrain = ns2.post("/api/v1/pools/blue/undrain", "{\"reason\":\"it-undrain\"}");
      assertEquals(200, undrain.status(), undrain.body());
      c.awaitAll("the undrain", BOUND, n -> n.answersAll(WEB, watch, List.of(BLUE)));

      // A move of half the clients through ns3, then its rollback through ns3.
      Reply move =
          ns3.post(
              SVC + "/move",
              "{\"from\":[\"blue\"],\"to\":[\"green\"],\"steps\":[50,100],\"reason\":\"it-move\"}");
      assertEquals(200, move.status(), move.body());
      List<List<String>> moved = ns3.answers(WEB, subnets);
      assertTrue(moved.contains(List.of(GREEN)) && moved.contains(List.of(BLUE)), "half moved");
      c.awaitAll("the move's first step", BOUND, n -> n.answers(WEB, subnets).equals(moved));
      List<String> movedClients = new ArrayList<>();
      for (int i = 0; i < subnets.size() && movedClients.size() < watch.size(); i++) {
        if (moved.get(i).equals(List.of(GREEN))) {
          movedClients.add(subnets.get(i));
        }
      }
      t = System.nanoTime();
      Reply rollback = ns3.post(SVC + "/rollback", "{\"reason\":\"it-rollback\"}");
      assertEquals(200, rollback.status(), rollback.body());
      awaitEverywhere(c, t, "rollback through ns3", movedClients, List.of(BLUE));
      assertEveryClient(c, subnets, List.of(BLUE));

      // A freeze through ns1 reaches every node's view of the service.
      t = System.nanoTime();
      Reply freeze = ns1.post(SVC + "/freeze", "{\"reason\":\"it-freeze\"}");
      assertEquals(200, freeze.status(), freeze.body());
      c.awaitAll("the freeze on every node", BOUND, n -> n.service(WEB).path("frozen").asBoolean());
      SluiceCluster.measured(
          "freeze through ns1, command to every node's state", (System.nanoTime() - t) / 1_000_000);

      // Every node's audit shows the whole cluster's commands.
      for (Node n : c.nodes()) {
        Set<String> reasons = new HashSet<>();
        for (JsonNode e : n.audit()) {
          reasons.add(e.path("reason").asText());
        }
        assertTrue(
            reasons.containsAll(
                List.of(
                    "it-weights", "it-drain", "it-undrain", "it-move", "it-rollback", "it-freeze")),
            n + "'s audit lacks commands made through other nodes: " + reasons);
      }
    }
  }

  /** Whether the node answers some clients from blue and some from green. */
  private static boolean bothPools(Node n, List<String> subnets) throws Exception {
    List<List<String>> a = n.answers(WEB, subnets.subList(0, 64));
    return a.contains(List.of(BLUE)) && a.contains(List.of(GREEN));
  }

  /**
   * Waits until every node answers {@code expected} to the watched clients, and prints the time
   * from {@code startNanos} (just before the command was sent) as the command-to-all-nodes time.
   */
  static void awaitEverywhere(
      SluiceCluster c, long startNanos, String what, List<String> watch, List<String> expected)
      throws Exception {
    c.awaitAll(what, BOUND, n -> n.answersAll(WEB, watch, expected));
    SluiceCluster.measured(
        what + ", command to every node's DNS answers",
        (System.nanoTime() - startNanos) / 1_000_000);
  }

  /** Every node answers {@code expected} to every client, so they are also identical. */
  static void assertEveryClient(SluiceCluster c, List<String> subnets, List<String> expected)
      throws Exception {
    for (Node n : c.live()) {
      List<List<String>> answers = n.answers(WEB, subnets);
      for (int i = 0; i < subnets.size(); i++) {
        assertEquals(expected, answers.get(i), n + " for client " + subnets.get(i));
      }
    }
  }
}
