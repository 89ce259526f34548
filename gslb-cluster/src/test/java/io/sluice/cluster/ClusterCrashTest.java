package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.testing.AckingChild;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster node killed ({@code kill -9}) at random points in a stream of acknowledged commands:
 * each command is applied everywhere or nowhere. The restarted node serves exactly what the other
 * node serves, every acknowledged change is there, and none is half-applied — including a change
 * etcd committed just before the kill that the node had not yet journalled itself.
 */
class ClusterCrashTest {
  private static final int KILLS = 8;

  @TempDir Path dir;

  @Test
  void aNodeKilledMidCommandLeavesItAppliedEverywhereOrNowhere() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        SharedStateOnEtcdTest.Node b =
            new SharedStateOnEtcdTest.Node("b", etcd, dir.resolve("b"))) {
      Random random = new Random(7);
      StringBuilder log = new StringBuilder();
      int acked = 0;
      for (int kill = 0; kill <= KILLS; kill++) {
        Process p =
            AckingChild.start(
                ClusterCrashChild.class, dir.resolve("a").toString(), "a", etcd.endpoints().get(0));
        try (BufferedReader in =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          String first = AckingChild.protocolLine(in, log);
          assertTrue(first != null && first.startsWith("restored "), "child said: " + first + log);
          String[] parts = first.split(" ");
          int restored = Integer.parseInt(parts[1]);
          assertEquals(parts[1], parts[2], "both weights of one command restored together");
          assertTrue(restored >= acked, "acknowledged " + acked + " but restored " + restored);
          assertTrue(restored <= acked + 1, "restored " + restored + " beyond the one in flight");
          // The restarted node serves what the cluster holds, whatever it journalled itself.
          int cluster = restored;
          SharedStateOnEtcdTest.await(
              "b serves what the restarted node serves",
              Duration.ofSeconds(20),
              () ->
                  Map.of("primary", cluster, "standby", cluster).equals(b.weights())
                      || cluster == 0 && b.weights().isEmpty());
          acked = restored;
          if (kill == KILLS) {
            p.toHandle().destroyForcibly();
            break;
          }
          acked = AckingChild.killAfter(p, in, 1 + random.nextInt(6), random, 5, acked, log);
        } finally {
          p.destroyForcibly();
          assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        }
      }
      assertTrue(acked > 0, "no command was acknowledged at all");
      System.out.println("cluster crash test: " + KILLS + " kills, " + acked + " commands");
    }
  }
}
