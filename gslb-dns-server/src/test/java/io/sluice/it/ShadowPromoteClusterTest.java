package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.cli.CtlMain;
import io.sluice.cluster.testing.EtcdCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Promoting a shadow chain on a node of a cluster sharing its configuration through a real etcd:
 * one command on one node is one configuration version of the cluster, which the other node applies
 * (its shadow gone, the candidate served as the chain).
 */
class ShadowPromoteClusterTest {
  @TempDir Path one;
  @TempDir Path two;

  private static String yaml(String node, String endpoints) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        cluster:
          node: %s
          etcd: { endpoints: [%s], prefix: /sluice/shadow-it, timeout: 10s }
        regions: { eu: {}, us: {} }
        pools:
          p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
          p-us: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
              - name: app
                pools: [p-eu, p-us]
                chain: [healthy, geo]
                shadow: { chain: [healthy, weighted], sample: 0.5 }
        """
        .formatted(node, endpoints);
  }

  private static JsonNode chainOf(LiveNode node) throws Exception {
    return node.get("/api/v1/services/app.example.test").json().path("chain");
  }

  @Test
  void promotingOnOneNodeIsOneClusterVersionTheOtherNodeApplies() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3)) {
      String endpoints = String.join(", ", etcd.endpoints());
      try (LiveNode n1 = LiveNode.start(one, yaml("n1", endpoints));
          LiveNode n2 = LiveNode.start(two, yaml("n2", endpoints))) {
        assertEquals(200, n2.get("/api/v1/shadow/app.example.test").status());
        LiveNode.CtlRun promote =
            LiveNode.ctl(
                Map.of("SLUICE_ADMIN_URL", n1.adminUrl(), "SLUICE_TOKEN", n1.token),
                "shadow",
                "promote",
                "app.example.test",
                "--reason",
                "weighted on every node",
                "--yes");
        assertEquals(CtlMain.OK, promote.exit(), promote.out() + promote.err());

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (n2.get("/api/v1/shadow/app.example.test").status() != 404) {
          assertTrue(System.nanoTime() < deadline, "n2 never applied the promoted version");
          Thread.sleep(50);
        }
        assertEquals("[\"healthy\",\"weighted\"]", chainOf(n2).toString());
        assertEquals("[\"healthy\",\"weighted\"]", chainOf(n1).toString());
        JsonNode history = n2.get("/api/v1/config/versions").json();
        assertEquals(2, history.path("current").asLong(), history.toString());
        assertEquals(
            "promoted the shadow chain of app.example.test.: weighted on every node",
            history.path("versions").get(0).path("reason").asText());
      }
    }
  }
}
