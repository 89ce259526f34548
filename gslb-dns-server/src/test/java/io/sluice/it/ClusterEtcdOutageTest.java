package io.sluice.it;

import static io.sluice.it.ClusterBackends.BLUE;
import static io.sluice.it.ClusterBackends.GREEN;
import static io.sluice.it.ClusterBackends.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.it.LiveNode.Reply;
import io.sluice.it.SluiceCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 4 of the cluster: two of the three etcd members are killed, so etcd has no majority.
 * Every node keeps answering its last state for 1,000 clients, even when a backend dies meanwhile
 * (a cut-off node never changes answers on its own evidence), says it is cut off (metric {@code
 * sluice_cluster_connected} 0), and refuses an ordinary command with 503 naming etcd; a freeze (a
 * safety action) still applies on the node it is sent to. When the members come back, every node
 * reconnects, the freeze made during the cut reaches every node, and a new command is answered by
 * all three again.
 */
class ClusterEtcdOutageTest {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String SVC = "/api/v1/services/web.example.test";

  @TempDir Path dir;

  private static double connected(Node n) throws Exception {
    return n.metric("sluice_cluster_connected", Map.of());
  }

  @Test
  void nodesCutOffFromEtcdKeepAnsweringRefuseCommandsAndResyncWhenItReturns() throws Exception {
    List<String> subnets = SluiceCluster.subnets(ClusterCommandsTest.CLIENTS);
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir, b.body())) {
      Node ns1 = c.node(0);
      Node ns2 = c.node(1);
      Node ns3 = c.node(2);
      c.awaitAll(
          "web answered from both pools",
          BOUND,
          n -> {
            List<List<String>> a = n.answers(WEB, subnets.subList(0, 64));
            return a.contains(List.of(BLUE)) && a.contains(List.of(GREEN));
          });
      c.awaitAll("connected to etcd", BOUND, n -> connected(n) == 1.0);
      assertEquals(List.of(), c.differences(WEB, subnets), "identical answers to begin with");
      List<List<String>> before = ns1.answers(WEB, subnets);

      c.etcd().kill(0);
      c.etcd().kill(1);
      c.awaitAll("every node says it is cut off", BOUND, n -> connected(n) == 0.0);

      Reply refused =
          ns1.put(
              SVC + "/weights", "{\"weights\":{\"blue\":1,\"green\":0},\"reason\":\"in the cut\"}");
      assertEquals(503, refused.status(), refused.body());
      assertTrue(refused.body().contains("cluster_unreachable"), refused.body());
      assertTrue(refused.body().contains("etcd"), "the refusal names etcd: " + refused.body());

      // A backend dies during the cut: no node changes its answers on its own evidence.
      b.green.kill();
      Reply freeze = ns2.post(SVC + "/freeze", "{\"reason\":\"freeze in the cut\"}");
      assertEquals(200, freeze.status(), "a freeze applies on a cut-off node: " + freeze.body());
      long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
      do {
        for (Node n : c.nodes()) {
          assertEquals(before, n.answers(WEB, subnets), n + " changed an answer while cut off");
        }
      } while (System.nanoTime() < until);
      b.green.start();

      c.etcd().restart(0);
      c.etcd().restart(1);
      long back = System.nanoTime();
      c.awaitAll("every node reconnected", BOUND, n -> connected(n) == 1.0);
      c.awaitAll(
          "the freeze made in the cut on every node",
          BOUND,
          n -> n.service(WEB).path("frozen").asBoolean());
      SluiceCluster.measured(
          "resync after etcd's majority returned", (System.nanoTime() - back) / 1_000_000);

      // Right after etcd's return a command can still meet a client reconnecting to the restarted
      // members (503, no answer within the timeout); an operator retries with the same request id,
      // which applies it once.
      Reply weights;
      int attempts = 0;
      long deadline = System.nanoTime() + BOUND.toNanos();
      do {
        attempts++;
        weights =
            ns3.put(
                SVC + "/weights",
                "{\"weights\":{\"blue\":1,\"green\":0},\"reason\":\"after the cut\","
                    + "\"requestId\":\"after-the-cut\"}");
      } while (weights.status() == 503 && System.nanoTime() < deadline);
      assertEquals(200, weights.status(), weights.body());
      System.out.println(
          "[cluster figure] first command after etcd's return: attempts " + attempts);
      c.awaitAll(
          "the command after the cut on every node",
          BOUND,
          n -> n.answersAll(WEB, ClusterCommandsTest.witnesses(subnets), List.of(BLUE)));
      ClusterCommandsTest.assertEveryClient(c, subnets, List.of(BLUE));
    }
  }
}
