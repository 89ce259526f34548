package io.sluice.it;

import static io.sluice.it.ClusterBackends.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.it.LiveNode.Reply;
import io.sluice.it.SluiceCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 5 of the cluster: two operators change the same service at the same moment through two
 * different nodes, round after round: one sets the weights, the other freezes or unfreezes the
 * service. Both are acknowledged, and after each round every node holds both outcomes (none lost to
 * the other's write), and the audit of a third node lists every command once.
 */
class ClusterConcurrentOperatorsTest {
  private static final int ROUNDS = 12;
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String SVC = "/api/v1/services/web.example.test";

  @TempDir Path dir;

  @Test
  void twoOperatorsChangingTheSameServiceThroughTwoNodesAtOnceLoseNothing() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir, b.body())) {
      Node ns1 = c.node(0);
      Node ns2 = c.node(1);
      Node ns3 = c.node(2);
      for (int round = 1; round <= ROUNDS; round++) {
        int weight = round + 1;
        boolean freeze = round % 2 == 1;
        CountDownLatch go = new CountDownLatch(1);
        int r = round;
        Future<Reply> a =
            pool.submit(
                () -> {
                  go.await();
                  return ns1.put(
                      SVC + "/weights",
                      "{\"weights\":{\"blue\":%d,\"green\":1},\"reason\":\"w-%d\"}"
                          .formatted(weight, r));
                });
        Future<Reply> f =
            pool.submit(
                () -> {
                  go.await();
                  return ns2.post(
                      SVC + (freeze ? "/freeze" : "/unfreeze"),
                      "{\"reason\":\"f-%d\"}".formatted(r));
                });
        go.countDown();
        Reply wr = a.get(30, TimeUnit.SECONDS);
        Reply fr = f.get(30, TimeUnit.SECONDS);
        assertEquals(200, wr.status(), "round " + round + " weights: " + wr.body());
        assertEquals(200, fr.status(), "round " + round + " freeze: " + fr.body());
        c.awaitAll(
            "round " + round + ": both outcomes on every node",
            BOUND,
            n -> {
              JsonNode s = n.service(WEB);
              return Node.weight(s, "blue") == weight && s.path("frozen").asBoolean() == freeze;
            });
      }
      // Nothing changes afterwards either: the last round's outcomes stay on every node.
      for (Node n : c.nodes()) {
        JsonNode s = n.service(WEB);
        assertEquals(ROUNDS + 1, Node.weight(s, "blue"), n + ": " + s);
        assertEquals(ROUNDS % 2 == 1, s.path("frozen").asBoolean(), n + ": " + s);
      }
      Map<String, Integer> seen = new HashMap<>();
      for (JsonNode e : ns3.audit()) {
        seen.merge(e.path("reason").asText(), 1, Integer::sum);
      }
      List<String> wrong = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        for (String reason : List.of("w-" + round, "f-" + round)) {
          if (seen.getOrDefault(reason, 0) != 1) {
            wrong.add(reason + " x" + seen.getOrDefault(reason, 0));
          }
        }
      }
      assertTrue(wrong.isEmpty(), "every command audited exactly once on ns3: " + wrong);
    } finally {
      pool.shutdownNow();
    }
  }
}
