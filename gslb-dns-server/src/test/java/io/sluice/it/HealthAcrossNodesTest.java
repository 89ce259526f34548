package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import io.etcd.jetcd.Client;
import io.sluice.cluster.ClusterHealth;
import io.sluice.cluster.EtcdClients;
import io.sluice.cluster.EtcdOpinions;
import io.sluice.cluster.NodeLease;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.AuditSink;
import io.sluice.core.health.Opinion;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.ProbeService;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes sharing health opinions on a real three-member etcd, probing one real HTTP backend.
 * Each node checks the backend under a path of its own ({@code /ready/<node>}), so the test can
 * break one node's view of the backend while the others still see it pass: the same endpoint, the
 * same checks, a different network path per vantage, which is what a partial outage looks like.
 */
class HealthAcrossNodesTest {
  private static final String EP = "p1/a";
  private static final long WAIT_MILLIS = 30_000;

  @TempDir Path dir;
  private final PathBackend backend = new PathBackend();
  private final List<AutoCloseable> open = new ArrayList<>();
  private EtcdCluster etcd;

  @AfterEach
  void stop() {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // Best effort: the next resource still closes.
      }
    }
    if (etcd != null) {
      etcd.close();
    }
    backend.close();
  }

  /** A real backend answering {@code /ready/<node>} with 200, or 503 for the nodes in failing. */
  static final class PathBackend implements AutoCloseable {
    final Set<String> failing = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> failed = new ConcurrentHashMap<>();
    private final HttpServer server;

    PathBackend() {
      try {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      server.createContext(
          "/ready/",
          ex -> {
            String node = ex.getRequestURI().getPath().substring("/ready/".length());
            boolean fail = failing.contains(node);
            if (fail) {
              failed.computeIfAbsent(node, k -> new AtomicInteger()).incrementAndGet();
            }
            byte[] body = (fail ? "down" : "ready").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(fail ? 503 : 200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
    }

    int port() {
      return server.getAddress().getPort();
    }

    int failedFor(String node) {
      return failed.computeIfAbsent(node, k -> new AtomicInteger()).get();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  /** One node: its snapshot store, probe service and opinion exchange. */
  final class Node {
    final String name;
    final SnapshotStore store;
    final EtcdOpinions opinions;
    final ProbeService probes;
    final List<Verdict> seen = new ArrayList<>();
    private final Client crashable;

    Node(String name, SluiceConfig config, EtcdOpinions opinions, Client crashable) {
      this.name = name;
      this.store = new SnapshotStore(Snapshot.initial(config));
      this.opinions = opinions;
      this.crashable = crashable;
      store.addListener(
          s -> {
            synchronized (seen) {
              seen.add(s.health().verdict(EP));
            }
          });
      this.probes =
          ProbeService.start(
              store,
              HealthPublisher.direct(store),
              AuditSink.NONE,
              GslbMetrics.NOOP,
              Ticker.SYSTEM,
              opinions);
      open.add(probes);
    }

    Verdict verdict() {
      return store.current().health().verdict(EP);
    }

    boolean everServed(Verdict v) {
      synchronized (seen) {
        return seen.contains(v);
      }
    }

    Opinion opinionOf(String vantage) {
      return opinions.view().get(EP + "/" + vantage);
    }

    /** Dies without a word: the probes stop, the lease is neither revoked nor kept alive. */
    void crash() {
      probes.close();
      opinions.close();
      crashable.close();
    }
  }

  private SluiceConfig config(String node, List<String> endpoints) throws Exception {
    String yaml =
        """
        stateDir: %s
        cluster:
          node: %s
          region: eu
          etcd: { endpoints: [%s], prefix: /sluice/test, timeout: 1s }
          leaseTtl: 2s
        pools:
          p1:
            health:
              fullLink: { type: http, port: %d, path: /ready/%s, interval: 300ms, timeout: 300ms }
              downAfter: 2
              upAfter: 1
              attempts: 1
              fastRecheck: 100ms
              cooldown: 0s
            endpoints: [ { name: a, address: 127.0.0.1 } ]
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            services:
              - { name: app, pools: [p1] }
        """
            .formatted(
                dir.resolve(node),
                node,
                String.join(", ", endpoints.stream().map(e -> "\"" + e + "\"").toList()),
                backend.port(),
                node);
    return ConfigLoader.parse(yaml, "test.yaml", dir);
  }

  /** A node wired as the server wires it ({@link ClusterHealth}). */
  private Node node(String name, List<String> endpoints) throws Exception {
    SluiceConfig c = config(name, endpoints);
    ClusterHealth health = ClusterHealth.open(c);
    open.add(health);
    return new Node(name, c, health.opinions(), null);
  }

  /** A node whose process can be made to die without revoking its lease. */
  private Node crashableNode(String name, List<String> endpoints) throws Exception {
    SluiceConfig c = config(name, endpoints);
    Client client = EtcdClients.create(c);
    NodeLease lease = NodeLease.grant(client, Duration.ofSeconds(2), Duration.ofSeconds(5));
    EtcdOpinions opinions =
        EtcdOpinions.create(client, name, lease::id, c.cluster().etcd().timeout(), Ticker.SYSTEM);
    return new Node(name, c, opinions, client);
  }

  private static void waitFor(String what, BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + WAIT_MILLIS + " ms waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private static boolean all(List<Node> nodes, Verdict v) {
    return nodes.stream().allMatch(n -> n.verdict() == v);
  }

  private static boolean everyoneHears(List<Node> nodes, String vantage, Verdict v) {
    return nodes.stream()
        .allMatch(n -> n.opinionOf(vantage) != null && n.opinionOf(vantage).opinion() == v);
  }

  @Test
  void oneOfThreeSeeingDownIsNoSwitchTwoAreAndADeadNodesOpinionsExpire() throws Exception {
    etcd = EtcdCluster.start(3);
    Node a = node("node-a", etcd.endpoints());
    Node b = crashableNode("node-b", etcd.endpoints());
    Node c = node("node-c", etcd.endpoints());
    List<Node> nodes = List.of(a, b, c);
    waitFor("every node up", () -> all(nodes, Verdict.UP));
    for (String v : List.of("node-a", "node-b", "node-c")) {
      waitFor("every node hears " + v, () -> everyoneHears(nodes, v, Verdict.UP));
    }
    Opinion stored = a.opinionOf("node-c");
    assertEquals("node-c", stored.via());
    assertEquals("eu", stored.region());
    assertTrue(stored.pathOk());

    // Only node-c's path to the backend fails: its vantage says down, the quorum does not.
    backend.failing.add("node-c");
    waitFor("everyone hears node-c down", () -> everyoneHears(nodes, "node-c", Verdict.DOWN));
    int failedBefore = backend.failedFor("node-c");
    waitFor("node-c keeps failing", () -> backend.failedFor("node-c") >= failedBefore + 5);
    for (Node n : nodes) {
      assertEquals(Verdict.UP, n.verdict(), n.name + ": " + n.store.current().health().get(EP));
      assertFalse(n.everServed(Verdict.DOWN), n.name + " switched on one vantage's word");
    }

    // node-b's path fails too: two of three, every node switches.
    backend.failing.add("node-b");
    waitFor("every node down", () -> all(nodes, Verdict.DOWN));
    assertTrue(
        a.store.current().health().get(EP).reason().contains("2 down, 0 suspect, 1 up of 3"),
        a.store.current().health().get(EP).reason());

    // node-b dies: its opinion expires with its lease (TTL 2 s) and the quorum is recomputed over
    // node-a (up) and node-c (down): one of two is no majority, so the endpoint is up again.
    b.crash();
    List<Node> alive = List.of(a, c);
    waitFor(
        "node-b's opinion expired",
        () -> alive.stream().allMatch(n -> n.opinionOf("node-b") == null));
    waitFor("the survivors up again", () -> all(alive, Verdict.UP));
    assertNull(c.opinionOf("node-b"));
  }

  @Test
  void aCutOffNodeHoldsItsVerdictsAndResumesOnReconnect() throws Exception {
    etcd = EtcdCluster.start(3);
    Node a = node("node-a", etcd.endpoints().subList(0, 2));
    Node b = node("node-b", etcd.endpoints().subList(0, 2));
    // node-c reaches etcd through the third member only.
    Node c = node("node-c", etcd.endpoints().subList(2, 3));
    List<Node> nodes = List.of(a, b, c);
    backend.failing.add("node-a");
    waitFor("node-a's down opinion heard", () -> everyoneHears(nodes, "node-a", Verdict.DOWN));
    waitFor("node-c's up opinion heard", () -> everyoneHears(nodes, "node-c", Verdict.UP));
    waitFor("every node up (one of three down)", () -> all(nodes, Verdict.UP));

    etcd.kill(2);
    waitFor("node-c sees it is cut off", () -> !c.probes.status().exchange().connected());
    assertTrue(c.probes.status().exchange().note().contains("held"));
    // Cut off, node-c's own path fails. With the last opinions it heard (node-a down, node-b up)
    // its own evidence would make two of three: it must not switch on that.
    backend.failing.add("node-c");
    int failedBefore = backend.failedFor("node-c");
    waitFor("node-c keeps failing", () -> backend.failedFor("node-c") >= failedBefore + 8);
    assertEquals(Verdict.UP, c.verdict(), c.store.current().health().get(EP).toString());
    assertFalse(c.everServed(Verdict.DOWN), "node-c switched on its own evidence");
    // The others never heard node-c's new opinion: still one of three at most.
    assertEquals(Verdict.UP, a.verdict());
    assertEquals(Verdict.UP, b.verdict());

    // Reconnected, node-c shares its opinion again and every node follows the quorum: two of three.
    etcd.restart(2);
    waitFor("node-c reconnected", () -> c.probes.status().exchange().connected());
    waitFor("every node down", () -> all(nodes, Verdict.DOWN));
    assertEquals(Verdict.DOWN, a.opinionOf("node-c").opinion());
  }
}
