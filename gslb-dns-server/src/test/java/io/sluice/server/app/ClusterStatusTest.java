package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ConfigLoader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real nodes on a real three-member etcd: each lists both with region, role and addresses,
 * exactly one leads, the gauges say which, and when the leader stops the other takes over and shows
 * the stopped node as stale.
 */
class ClusterStatusTest {
  private static final String TOKEN = "viewer-secret-1";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  private SluiceRuntime node(String name, String region, List<String> endpoints) throws Exception {
    Path d = Files.createDirectories(dir.resolve(name));
    return start(
        d,
        """
        regions: { eu: {}, us: {} }
        cluster:
          node: %s
          region: %s
          leaseTtl: 2s
          etcd: { endpoints: [%s], prefix: /status-test }
        """
            .formatted(name, region, String.join(", ", endpoints)));
  }

  /** A node in {@code d} serving one service, its admin API on, with {@code extra} appended. */
  private static SluiceRuntime start(Path d, String extra) throws Exception {
    Path file = d.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin:
          listen: 127.0.0.1
          port: 0
          tokens: [ { name: vera, role: viewer, sha256: %s } ]
        stateDir: state
        pools:
          p1: { endpoints: [ { address: 192.0.2.1 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            services:
              - { name: app, pools: [p1] }
        %s
        """
            .formatted(TokenAuthenticator.hash(TOKEN), extra));
    return SluiceRuntime.start(ConfigLoader.load(file), file, CliOverrides.NONE);
  }

  private String send(SluiceRuntime r, String path) throws Exception {
    HttpResponse<String> res =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.admin().port() + path))
                .header("Authorization", "Bearer " + TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, res.statusCode(), res.body());
    return res.body();
  }

  private JsonNode get(SluiceRuntime r, String path) throws Exception {
    return JSON.readTree(send(r, path));
  }

  private double gauge(SluiceRuntime r, String name) throws Exception {
    String body = send(r, "/metrics");
    for (String line : body.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError(name + " not exposed:\n" + body);
  }

  private JsonNode await(SluiceRuntime r, Predicate<JsonNode> ready, String what) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      last = get(r, "/api/v1/cluster");
      if (ready.test(last)) {
        return last;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("not within 30 s: " + what + "; last view " + last);
  }

  private static List<JsonNode> nodes(JsonNode view) {
    return StreamSupport.stream(view.path("nodes").spliterator(), false).toList();
  }

  private static long leaders(JsonNode view) {
    return nodes(view).stream().filter(n -> n.path("role").asText().equals("leader")).count();
  }

  @Test
  void bothNodesListEachOtherOneLeadsAndTheOtherTakesOverWhenItStops() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3)) {
      List<SluiceRuntime> running = new ArrayList<>();
      try {
        SluiceRuntime ns1 = node("ns1", "eu", etcd.endpoints());
        running.add(ns1);
        SluiceRuntime ns2 = node("ns2", "us", etcd.endpoints());
        running.add(ns2);
        Predicate<JsonNode> settled =
            v ->
                nodes(v).size() == 2
                    && leaders(v) == 1
                    && nodes(v).stream().allMatch(n -> n.path("connected").asBoolean());
        JsonNode view = await(ns1, settled, "both nodes listed, one leader");
        await(ns2, settled, "the same on ns2");
        assertTrue(view.path("clustered").asBoolean());
        assertEquals("ns1", view.path("node").asText());
        assertTrue(view.path("connected").asBoolean());
        JsonNode two = nodes(view).get(1);
        assertEquals("ns2", two.path("node").asText());
        assertEquals("us", two.path("region").asText());
        assertEquals("127.0.0.1:" + ns2.node().port(), two.path("dns").asText());
        assertEquals("http://127.0.0.1:" + ns2.admin().port(), two.path("admin").asText());
        assertTrue(two.path("lastHeartbeat").asText().endsWith("Z"), "a time people read");

        String leader = view.path("leader").asText();
        SluiceRuntime leading = leader.equals("ns1") ? ns1 : ns2;
        SluiceRuntime following = leading == ns1 ? ns2 : ns1;
        // The key holder leads once it has caught up with the shared state.
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!leading.membership().leadership().leads() && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        assertTrue(leading.membership().leadership().leads());
        assertFalse(following.membership().leadership().leads());
        assertEquals(1.0, gauge(leading, "sluice_cluster_leader"));
        assertEquals(0.0, gauge(following, "sluice_cluster_leader"));
        assertEquals(1.0, gauge(following, "sluice_cluster_connected"));
        assertTrue(gauge(following, "sluice_cluster_last_contact_age_seconds") < 30);
        gauge(following, "sluice_cluster_applied_revision");
        gauge(following, "sluice_cluster_lag_revisions");

        // An orderly stop gives the lead up at once; the survivor shows the stopped node stale.
        leading.close();
        running.remove(leading);
        String survivor = leader.equals("ns1") ? "ns2" : "ns1";
        JsonNode after =
            await(
                following,
                v ->
                    v.path("leader").asText().equals(survivor)
                        && nodes(v).stream()
                            .anyMatch(
                                n ->
                                    n.path("node").asText().equals(leader)
                                        && !n.path("connected").asBoolean()),
                "the survivor leads and shows the stopped node stale");
        JsonNode gone =
            nodes(after).stream()
                .filter(n -> n.path("node").asText().equals(leader))
                .findFirst()
                .orElseThrow();
        assertTrue(gone.path("staleSince").asText().endsWith("Z"), gone.toString());
        assertEquals(1.0, gauge(following, "sluice_cluster_leader"));
        assertFalse(nodes(after).isEmpty());
      } finally {
        running.forEach(SluiceRuntime::close);
      }
    }
  }

  @Test
  void aSingleNodeSaysItIsNotClustered() throws Exception {
    try (SluiceRuntime r = start(Files.createDirectories(dir.resolve("single")), "")) {
      JsonNode view = get(r, "/api/v1/cluster");
      assertFalse(view.path("clustered").asBoolean());
      assertTrue(view.path("message").asText().startsWith("not clustered"));
    }
  }
}
