package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two whole nodes sharing their operator state through a real etcd, over their admin APIs and DNS
 * listeners: a drain through one changes the other's answers; with etcd gone a command answers 503
 * {@code cluster_unreachable} naming etcd and changes no answer, a freeze still applies locally, a
 * node restarted meanwhile answers from its last persisted state, and once etcd is back the freeze
 * of the cut reaches every node.
 */
class ClusterSharedStateTest {
  // A client in 10.2/16 (us) is answered from p-us unless p-us is drained.
  private static final String US = "10.2.0.0/24";
  private static final String APP = "app.example.test.";

  @TempDir Path dir;

  private static String config(String node, Path state, List<String> endpoints) {
    return AdminEndToEndTest.CONFIG.replace("stateDir: state\n", "stateDir: " + state + "\n")
        + "cluster:\n  node: "
        + node
        + "\n  etcd: { endpoints: ["
        + String.join(", ", endpoints)
        + "], timeout: 1s }\n";
  }

  private static LiveNode start(Path dir, String node, EtcdCluster etcd) throws Exception {
    Path home = Files.createDirectories(dir.resolve(node));
    return LiveNode.start(home, config(node, home.resolve("state"), etcd.endpoints()));
  }

  private static List<String> answer(LiveNode n) throws Exception {
    return LiveNode.addresses(n.query(APP, US));
  }

  private static void await(String what, Duration bound, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + bound.toSeconds() + " s: " + what);
      }
      Thread.sleep(5);
    }
  }

  private static boolean answers(LiveNode n, String address) {
    try {
      return answer(n).equals(List.of(address));
    } catch (Exception e) {
      return false;
    }
  }

  private static long revision(LiveNode n) {
    return n.runtime.traffic().controller().appliedRevision();
  }

  @Test
  void aCommandThroughOneNodeChangesTheOthersAnswersAndACutNodeChangesNothingOnItsOwn()
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      LiveNode a = start(dir, "a", etcd);
      LiveNode[] restarted = new LiveNode[1];
      LiveNode b = start(dir, "b", etcd);
      try {
        await(
            "both nodes joined",
            Duration.ofSeconds(30),
            () -> revision(a) > 0 && revision(a) == revision(b));
        assertEquals(List.of("198.51.100.21"), answer(b));

        // Measured, not asserted: from the command's reply on a to b's first changed answer.
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          long t0 = System.nanoTime();
          LiveNode.Reply undrain = a.post("/api/v1/pools/p-us/undrain", "{\"reason\":\"back\"}");
          assertEquals(200, undrain.status(), undrain.body());
          await("b answers from p-us", Duration.ofSeconds(10), () -> answers(b, "198.51.100.21"));
          millis.add((System.nanoTime() - t0) / 1_000_000);
          t0 = System.nanoTime();
          LiveNode.Reply drain = a.post("/api/v1/pools/p-us/drain", "{\"reason\":\"maintenance\"}");
          assertEquals(200, drain.status(), drain.body());
          await("b answers without p-us", Duration.ofSeconds(10), () -> answers(b, "192.0.2.11"));
          millis.add((System.nanoTime() - t0) / 1_000_000);
        }
        System.out.println("command on a to the changed answer of b, ms: " + millis);
        // b's audit log has a's commands, each naming the node it was made on.
        LiveNode.CtlRun audit =
            LiveNode.ctl(
                Map.of("SLUICE_STATE_DIR", dir.resolve("b").resolve("state").toString()),
                "audit",
                "--limit",
                "3");
        assertEquals(0, audit.exit(), audit.out() + audit.err());
        assertTrue(audit.out().startsWith("SEQ  TIME"), audit.out());
        assertTrue(audit.out().lines().findFirst().orElse("").contains("NODE"), audit.out());
        assertTrue(
            audit.out().lines().skip(1).allMatch(l -> l.contains(" a ") || l.startsWith("(")),
            audit.out());

        etcd.kill(0);
        LiveNode.Reply refused = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
          refused = a.post("/api/v1/pools/p-us/undrain", "{\"reason\":\"back\"}");
          if (refused.status() == 503) {
            break;
          }
          // Before the cut is noticed the command may still reach etcd's last answer: undo it.
          Thread.sleep(100);
        }
        assertEquals(503, refused.status(), refused.body());
        JsonNode err = refused.json();
        assertEquals("cluster_unreachable", err.path("error").asText(), refused.body());
        assertTrue(err.path("message").asText().contains(etcd.endpoints().get(0)), refused.body());
        assertEquals(List.of("192.0.2.11"), answer(a), "no answer changed on a");

        LiveNode.Reply freeze = a.post("/api/v1/freeze", "{\"reason\":\"incident\"}");
        assertEquals(200, freeze.status(), freeze.body());
        AuditEvent local = last(a, "freeze");
        assertEquals(true, local.details().get("local"), local.toString());

        // b restarts while etcd is down: it answers from its last persisted state at once.
        b.close();
        LiveNode bb = start(dir, "b", etcd);
        restarted[0] = bb;
        assertEquals(List.of("192.0.2.11"), answer(bb));

        etcd.restart(0);
        await(
            "the freeze made during the cut reaches b",
            Duration.ofSeconds(60),
            () -> bb.store().current().traffic().frozen());
        await(
            "a owes the cluster nothing",
            Duration.ofSeconds(30),
            () -> a.runtime.traffic().controller().localActions().isEmpty());
        assertEquals(true, last(bb, "freeze").details().get("reconciled"));
      } finally {
        a.close();
        (restarted[0] != null ? restarted[0] : b).close();
      }
    }
  }

  private static AuditEvent last(LiveNode n, String action) {
    return n
        .runtime
        .traffic()
        .controlPlane()
        .audit(new AuditQuery(null, null, null, null, 0, 1000))
        .stream()
        .filter(e -> e.action().equals(action))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + action + " in the audit log"));
  }
}
