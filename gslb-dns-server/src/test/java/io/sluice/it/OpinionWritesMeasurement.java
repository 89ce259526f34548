package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import io.sluice.cluster.ClusterHealth;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.AuditSink;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.ProbeService;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures the etcd writes of the health opinions of three nodes probing real HTTP endpoints (100
 * by default): at start, in steady state, when a tenth of them fail and when they recover. Not part
 * of the suite (its name does not end in Test): run it with {@code
 * -Dtest=OpinionWritesMeasurement}.
 */
class OpinionWritesMeasurement {
  // -Dendpoints=N and -Dinterval=DURATION scale the run (defaults: 100 endpoints, every 2 s).
  static final int ENDPOINTS = Integer.getInteger("endpoints", 100);
  static final String INTERVAL = System.getProperty("interval", "2s");
  static final int DOWN = ENDPOINTS / 10;
  static final long SETTLE_MILLIS = 45_000;
  static final long STEADY_MILLIS = 60_000;

  @TempDir Path dir;

  @Test
  void writes() throws Exception {
    Set<Integer> failing = ConcurrentHashMap.newKeySet();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    server.createContext(
        "/ready/",
        ex -> {
          String[] parts = ex.getRequestURI().getPath().split("/");
          boolean fail = failing.contains(Integer.parseInt(parts[parts.length - 1]));
          byte[] body = (fail ? "down" : "ready").getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(fail ? 503 : 200, body.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    List<AutoCloseable> open = new ArrayList<>();
    try (EtcdCluster etcd = EtcdCluster.start(3)) {
      List<ClusterHealth> health = new ArrayList<>();
      List<SnapshotStore> stores = new ArrayList<>();
      for (String node : List.of("node-a", "node-b", "node-c")) {
        SluiceConfig c = config(node, etcd.endpoints(), server.getAddress().getPort());
        ClusterHealth h = ClusterHealth.open(c);
        open.add(h);
        health.add(h);
        SnapshotStore store = new SnapshotStore(Snapshot.initial(c));
        stores.add(store);
        open.add(
            ProbeService.start(
                store,
                HealthPublisher.direct(store),
                AuditSink.NONE,
                GslbMetrics.NOOP,
                Ticker.SYSTEM,
                h.opinions()));
      }
      waitFor(() -> count(stores, Verdict.UP) == 3 * ENDPOINTS);
      waitFor(() -> health.get(0).opinions().view().size() == 3 * ENDPOINTS);
      long start = writes(health);
      System.out.printf("start: %d key writes, %d txns%n", start, txns(health));

      // The first RTTs are taken while everything starts at once (JIT, every first check): each
      // opinion's RTT settles once, within the first 30 s refresh period. Counted apart.
      Thread.sleep(SETTLE_MILLIS);
      long settled = writes(health);
      System.out.printf(
          "settling: %d key writes in the %d s after start%n",
          settled - start, SETTLE_MILLIS / 1000);
      long t0 = System.nanoTime();
      Thread.sleep(STEADY_MILLIS);
      long steady = writes(health) - settled;
      double steadySeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          "steady: %d key writes in %.0f s = %.3f writes/s (%d endpoints, 3 nodes)%n",
          steady, steadySeconds, steady / steadySeconds, ENDPOINTS);

      long before = writes(health);
      long txBefore = txns(health);
      t0 = System.nanoTime();
      for (int i = 0; i < DOWN; i++) {
        failing.add(i);
      }
      waitFor(() -> count(stores, Verdict.DOWN) == 3 * DOWN);
      Thread.sleep(3_000);
      long outage = writes(health) - before;
      double outageSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          "outage of %d: %d key writes, %d txns, in %.1f s until every node had every verdict"
              + " (+3 s)%n",
          DOWN, outage, txns(health) - txBefore, outageSeconds);
      long during = writes(health);
      Thread.sleep(20_000);
      System.out.printf("during the outage: %d key writes in 20 s%n", writes(health) - during);

      before = writes(health);
      failing.clear();
      waitFor(() -> count(stores, Verdict.UP) == 3 * ENDPOINTS);
      Thread.sleep(3_000);
      System.out.printf("recovery: %d key writes%n", writes(health) - before);
      assertEquals(3 * ENDPOINTS, count(stores, Verdict.UP));
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).close();
      }
      server.stop(0);
    }
  }

  private static long writes(List<ClusterHealth> health) {
    return health.stream().mapToLong(h -> h.opinions().keyWrites()).sum();
  }

  private static long txns(List<ClusterHealth> health) {
    return health.stream().mapToLong(h -> h.opinions().transactions()).sum();
  }

  private static long count(List<SnapshotStore> stores, Verdict v) {
    return stores.stream()
        .flatMap(s -> s.current().health().all().values().stream())
        .filter(h -> h.verdict() == v)
        .count();
  }

  private static void waitFor(BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out");
      }
      Thread.sleep(50);
    }
  }

  private SluiceConfig config(String node, List<String> endpoints, int port) throws Exception {
    StringBuilder eps = new StringBuilder();
    for (int i = 0; i < ENDPOINTS; i++) {
      eps.append("      - name: e")
          .append(i)
          .append("\n        address: 127.0.0.1\n")
          .append("        health: { fullLink: { type: http, port: ")
          .append(port)
          .append(", path: /ready/")
          .append(node)
          .append("/")
          .append(i)
          .append(", interval: ")
          .append(INTERVAL)
          .append(", timeout: 1s }, cooldown: 5s }\n");
    }
    String yaml =
        """
        stateDir: %s
        cluster:
          node: %s
          region: eu
          etcd: { endpoints: [%s], prefix: /sluice/m }
        pools:
          p1:
            endpoints:
        %s
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
                eps.toString().stripTrailing());
    return ConfigLoader.parse(yaml, "m.yaml", dir);
  }
}
