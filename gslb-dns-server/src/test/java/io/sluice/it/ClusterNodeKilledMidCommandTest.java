package io.sluice.it;

import static io.sluice.it.ClusterBackends.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.it.LiveNode.Reply;
import io.sluice.it.SluiceCluster.Node;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node killed with SIGKILL while it takes a stream of commands leaves each command applied
 * everywhere or nowhere: the two other nodes agree on the state and the audit, every acknowledged
 * command is in both, every command is there at most once, and the killed node, started again,
 * catches up to exactly the same.
 */
class ClusterNodeKilledMidCommandTest {
  private static final Duration BOUND = Duration.ofSeconds(60);

  @TempDir Path dir;

  private static int blueWeight(Node n) throws Exception {
    return Node.weight(n.service(WEB), "blue");
  }

  /** The numbers k of the commands "k-N" in the node's audit; fails on one audited twice. */
  private static Set<Integer> commands(Node n) throws Exception {
    Set<Integer> out = new TreeSet<>();
    for (JsonNode e : n.audit()) {
      String reason = e.path("reason").asText();
      if (reason.startsWith("k-")) {
        assertTrue(out.add(Integer.parseInt(reason.substring(2))), n + " audits twice: " + reason);
      }
    }
    return out;
  }

  @Test
  void aNodeKilledMidCommandLeavesEachCommandAppliedEverywhereOrNowhere() throws Exception {
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir, b.body())) {
      Node ns1 = c.node(0);
      Node ns2 = c.node(1);
      Node ns3 = c.node(2);
      AtomicInteger acked = new AtomicInteger();
      AtomicInteger sent = new AtomicInteger();
      CountDownLatch fiveAcked = new CountDownLatch(5);
      Thread operator =
          new Thread(
              () -> {
                for (int k = 1; k < 10_000; k++) {
                  sent.set(k);
                  try {
                    Reply r =
                        ns1.put(
                            "/api/v1/services/web.example.test/weights",
                            "{\"weights\":{\"blue\":%d,\"green\":1},\"reason\":\"k-%d\",\"requestId\":\"k-%d\"}"
                                .formatted(k, k, k));
                    if (r.status() != 200) {
                      return;
                    }
                    acked.set(k);
                    fiveAcked.countDown();
                  } catch (IOException e) {
                    return; // the node died under the request
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "operator");
      operator.start();
      assertTrue(fiveAcked.await(60, TimeUnit.SECONDS), "five commands acknowledged");
      ns1.kill();
      operator.join(30_000);
      int lastAcked = acked.get();
      int lastSent = sent.get();

      c.awaitAll(
          "ns2 and ns3 agree",
          BOUND,
          n -> blueWeight(ns2) == blueWeight(ns3) && commands(ns2).equals(commands(ns3)));
      int applied = blueWeight(ns2);
      assertTrue(
          applied >= lastAcked && applied <= lastSent,
          "applied " + applied + ", acknowledged " + lastAcked + ", sent " + lastSent);
      Set<Integer> expected = new TreeSet<>();
      for (int k = 1; k <= applied; k++) {
        expected.add(k);
      }
      assertEquals(expected, commands(ns2), "every command up to the applied one, once, no other");

      ns1.start();
      ns1.awaitReady();
      c.awaitAll("ns1 caught up", BOUND, n -> blueWeight(n) == applied);
      assertEquals(expected, commands(ns1), "the restarted node has the same commands");
      assertEquals(expected, commands(ns3));
    }
  }
}
