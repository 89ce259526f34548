package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.probe.ProbeStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers started as {@code sluice run} starts them, with a {@code cluster:} section on one
 * real etcd: each is a vantage named after its node, hears the other's opinions, and their DNS
 * answers follow the quorum of both (one of two seeing the pool down is no majority; both are).
 */
class ClusterHealthOverTheWireTest {
  private static final String SERVICE = "app.example.test.";
  private static final String BACKUP = "198.51.100.21";

  @TempDir Path dir;

  private String yaml(String node, String etcd, int port) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        cluster:
          node: %s
          etcd: { endpoints: ["%s"], prefix: /sluice/wire, timeout: 1s }
          leaseTtl: 2s
        pools:
          primary:
            health:
              fullLink: { type: http, port: %d, path: /ready/%s, interval: 300ms, timeout: 300ms }
              downAfter: 2
              upAfter: 1
              attempts: 1
              fastRecheck: 100ms
              cooldown: 0s
            endpoints: [ { name: a, address: 127.0.0.1 } ]
          backup: { endpoints: [ { name: a, address: %s } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            services:
              - name: app
                pools: [primary, backup]
                chain: [healthy, priority]
                traffic: { mode: manual }
        """
        .formatted(node, etcd, port, node, BACKUP);
  }

  private static void waitFor(String what, BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private static List<String> answer(LiveNode n) {
    try {
      return LiveNode.addresses(n.query(SERVICE, null));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static boolean hears(LiveNode n, String vantage) {
    return n.runtime.probes().status().vantages().stream()
        .map(ProbeStatus.VantageStatus::name)
        .anyMatch(vantage::equals);
  }

  @Test
  void serversShareOpinionsAndAnswerFromTheQuorumOfBoth() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        HealthAcrossNodesTest.PathBackend backend = new HealthAcrossNodesTest.PathBackend()) {
      String endpoint = etcd.endpoints().get(0);
      Files.createDirectories(dir.resolve("a"));
      Files.createDirectories(dir.resolve("b"));
      try (LiveNode a = LiveNode.start(dir.resolve("a"), yaml("node-a", endpoint, backend.port()));
          LiveNode b = LiveNode.start(dir.resolve("b"), yaml("node-b", endpoint, backend.port()))) {
        assertEquals("node-a", a.runtime.probes().status().vantage());
        waitFor("each node hears the other", () -> hears(a, "node-b") && hears(b, "node-a"));
        assertTrue(a.runtime.probes().status().exchange().connected());
        assertEquals(List.of("127.0.0.1"), answer(a));

        // node-b's path fails: one of two is no majority, both keep answering the primary.
        backend.failing.add("node-b");
        int before = backend.failedFor("node-b");
        waitFor("node-b keeps failing", () -> backend.failedFor("node-b") >= before + 8);
        assertEquals(List.of("127.0.0.1"), answer(a));
        assertEquals(List.of("127.0.0.1"), answer(b));

        // node-a's path fails too: both answer the backup.
        backend.failing.add("node-a");
        waitFor(
            "both answer the backup",
            () -> answer(a).equals(List.of(BACKUP)) && answer(b).equals(List.of(BACKUP)));
      }
    }
  }
}
