package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.sluice.admin.cli.CtlMain;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.history.ConfigSource;
import io.sluice.core.config.history.ConfigVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes sharing their configuration through a real 3-member etcd: the first node's file
 * bootstraps the empty cluster and the second runs that version, not its own file; a push through
 * one node, with a master file larger than one etcd request, is answered by the other; a version
 * whose master file is not in etcd is not applied until the file is there.
 */
class ClusteredConfigTest {
  @TempDir Path one;
  @TempDir Path two;
  @TempDir Path elsewhere;

  private static final String PREFIX = "/sluice/config-it";

  private static String yaml(String node, String endpoints) {
    return yaml(node, endpoints, "10s");
  }

  private static String yaml(String node, String endpoints, String timeout) {
    String cluster =
        node == null
            ? ""
            : """
            cluster:
              node: %s
              etcd: { endpoints: [%s], prefix: %s, timeout: %s }
            """
                .formatted(node, endpoints, PREFIX, timeout);
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        %sregions: { eu: {} }
        pools:
          p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        zones:
          - origin: example.test.
            file: static.zone
            services:
              - { name: app, pools: [{ pool: p-eu }], chain: [healthy] }
        """
        .formatted(cluster);
  }

  private static String zone(String www, int hosts) {
    StringBuilder sb =
        new StringBuilder(
            """
            $TTL 300
            @   IN SOA ns1.example.test. h.example.test. 1 7200 1800 1209600 60
            @   IN NS  ns1.example.test.
            ns1 IN A   192.0.2.53
            www IN A   %s
            """
                .formatted(www));
    for (int i = 0; i < hosts; i++) {
      sb.append("host").append(i).append(" IN A 10.").append((i >> 16) & 255).append('.');
      sb.append((i >> 8) & 255).append('.').append(i & 255).append('\n');
    }
    return sb.toString();
  }

  private static String www(LiveNode node) throws Exception {
    return String.join(",", LiveNode.addresses(node.query("www.example.test.", null)));
  }

  /** Waits (bounded) until {@code node} answers {@code expected} for www. */
  private static void awaitWww(LiveNode node, String expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!www(node).equals(expected)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never answered " + expected + ", still " + www(node));
      }
      Thread.sleep(50);
    }
  }

  @Test
  void pushThroughOneNodeIsAnsweredByTheOtherOnlyWithAllItsFiles() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3)) {
      String endpoints = String.join(", ", etcd.endpoints());
      Files.writeString(one.resolve("static.zone"), zone("192.0.2.1", 0));
      Files.writeString(two.resolve("static.zone"), zone("192.0.2.99", 0));
      try (LiveNode n1 = LiveNode.start(one, yaml("n1", endpoints));
          LiveNode n2 = LiveNode.start(two, yaml("n2", endpoints))) {
        // The first node bootstrapped the cluster; the second runs its version, not its file.
        assertEquals("192.0.2.1", www(n1));
        assertEquals("192.0.2.1", www(n2));
        assertEquals(1, n2.get("/api/v1/config/versions").json().path("applied").asLong());

        // A push through n1 with a 3 MiB master file: n2 answers from it too.
        String big = zone("192.0.2.2", 120_000);
        assertTrue(big.length() > 1_500_000);
        Files.writeString(elsewhere.resolve("static.zone"), big);
        Path file = elsewhere.resolve("sluice.yaml");
        Files.writeString(file, yaml(null, null));
        LiveNode.CtlRun push =
            LiveNode.ctl(
                Map.of("SLUICE_ADMIN_URL", n1.adminUrl(), "SLUICE_TOKEN", n1.token),
                "config",
                "push",
                file.toString(),
                "--reason",
                "big zone");
        assertEquals(CtlMain.OK, push.exit(), push.out() + push.err());
        assertEquals("192.0.2.2", www(n1));
        awaitWww(n2, "192.0.2.2");
        assertEquals(
            "10.1.212.191", LiveNode.addresses(n2.query("host119999.example.test.", null)).get(0));
        var history = n2.get("/api/v1/config/versions").json();
        assertEquals(2, history.path("current").asLong(), history.toString());
        assertEquals("push", history.path("versions").get(0).path("source").asText());
        assertEquals("big zone", history.path("versions").get(0).path("reason").asText());

        // Version 3 names a master file etcd does not hold: no node applies it.
        byte[] master = zone("192.0.2.3", 0).getBytes(StandardCharsets.UTF_8);
        String sha = ConfigVersion.sha256(master);
        ConfigVersion v3 =
            ConfigVersion.draft(
                    yaml(null, null),
                    Map.of("static.zone", sha),
                    "mallory",
                    "operator",
                    ConfigSource.PUSH,
                    "file not uploaded",
                    System.currentTimeMillis(),
                    null)
                .numbered(3);
        try (Client raw =
            Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build()) {
          put(raw, "config/versions/3", v3.toJson());
          put(raw, "config/current", "3".getBytes(StandardCharsets.UTF_8));
          // Longer than the watch and one re-check take; the answers stay those of version 2.
          Thread.sleep(6_000);
          assertEquals("192.0.2.2", www(n2));
          assertEquals("192.0.2.2", www(n1));
          assertEquals(2, n2.get("/api/v1/config/versions").json().path("applied").asLong());

          // Once the file is there, the version is applied.
          put(raw, "blobs/" + sha + "/0", master);
          put(
              raw,
              "blobs/" + sha + "/meta",
              ("{\"size\":" + master.length + ",\"chunks\":1}").getBytes(StandardCharsets.UTF_8));
          awaitWww(n2, "192.0.2.3");
          awaitWww(n1, "192.0.2.3");
        }

        // A reload (SIGHUP) of n2's unchanged file keeps the cluster's version; once the file is
        // edited, the reload appends it as a new version that n1 applies too.
        LiveNode.Reply kept = n2.post("/api/v1/config/reload", "{}");
        assertEquals(200, kept.status(), kept.body());
        assertFalse(kept.json().path("changed").asBoolean(), kept.body());
        assertEquals("192.0.2.3", www(n2));
        Files.writeString(two.resolve("static.zone"), zone("192.0.2.4", 0));
        LiveNode.Reply reloaded = n2.post("/api/v1/config/reload", "{}");
        assertEquals(200, reloaded.status(), reloaded.body());
        assertEquals(4, reloaded.json().path("version").asLong(), reloaded.body());
        assertEquals("192.0.2.4", www(n2));
        awaitWww(n1, "192.0.2.4");
      }
    }
  }

  @Test
  void aNodeStartedWhileEtcdIsDownRunsItsLastAppliedVersion() throws Exception {
    Files.writeString(one.resolve("static.zone"), zone("192.0.2.1", 0));
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      String endpoints = String.join(", ", etcd.endpoints());
      try (LiveNode n1 = LiveNode.start(one, yaml("n1", endpoints))) {
        Files.writeString(elsewhere.resolve("static.zone"), zone("192.0.2.2", 0));
        Path file = elsewhere.resolve("sluice.yaml");
        Files.writeString(file, yaml(null, null));
        LiveNode.CtlRun push =
            LiveNode.ctl(
                Map.of("SLUICE_ADMIN_URL", n1.adminUrl(), "SLUICE_TOKEN", n1.token),
                "config",
                "push",
                file.toString());
        assertEquals(CtlMain.OK, push.exit(), push.out() + push.err());
        assertEquals("192.0.2.2", www(n1));
      }
      etcd.kill(0);
      try (LiveNode n1 = LiveNode.start(one, yaml("n1", endpoints, "1s"))) {
        assertEquals("192.0.2.2", www(n1));
        assertEquals(2, n1.get("/api/v1/config/versions").json().path("applied").asLong());
      }
    }
  }

  private static void put(Client raw, String key, byte[] value) throws Exception {
    raw.getKVClient()
        .put(
            io.etcd.jetcd.ByteSequence.from(PREFIX + "/" + key, StandardCharsets.UTF_8),
            io.etcd.jetcd.ByteSequence.from(value))
        .get(10, TimeUnit.SECONDS);
  }
}
