package io.sluice.it;

import static io.sluice.it.ClusterBackends.BLUE;
import static io.sluice.it.ClusterBackends.GREEN;
import static io.sluice.it.ClusterBackends.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.it.LiveNode.Reply;
import io.sluice.it.SluiceCluster.Node;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's figures, measured in real time on a real 3-member etcd and three Sluice nodes
 * (child JVMs); excluded from the normal build (tag {@code slow}), run by {@code
 * bench/cluster-bench.sh}, which prints the summary. Nothing here asserts a speed.
 *
 * <ul>
 *   <li>command to all nodes: the time from sending a weight change to one node until every node
 *       answers it over DNS, p50/p99 over {@code cluster.bench.commands} commands;
 *   <li>leader takeover: SIGKILL of the leader until another node is listed as leader;
 *   <li>divergence: client subnets (of 10,000) for which the nodes' answers differ;
 *   <li>etcd writes per second (revisions counted over a window) in steady state with 10,000
 *       endpoints checked by every node, and during an outage of 1,000 of them.
 * </ul>
 */
@Tag("slow")
class ClusterBench {
  @TempDir Path dir;

  private static final Path OUT =
      Path.of(System.getProperty("cluster.bench.out", "target/cluster-bench.txt"));

  private static int prop(String name, int def) {
    return Integer.getInteger("cluster.bench." + name, def);
  }

  private static void report(String line) throws IOException {
    System.out.println("[cluster figure] " + line);
    Files.writeString(
        OUT,
        line + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private static long percentile(List<Long> sorted, double p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  @Test
  void commandsToEveryNodeAndDivergence() throws Exception {
    Files.createDirectories(OUT.toAbsolutePath().getParent());
    int commands = prop("commands", 100);
    int subnets = prop("subnets", 10_000);
    try (ClusterBackends b = new ClusterBackends();
        SluiceCluster c = SluiceCluster.startWithEtcd(dir.resolve("a"), b.body())) {
      String witness = "10.0.0.0/24";
      c.awaitAll(
          "web answered",
          Duration.ofSeconds(60),
          n -> !n.answer(WEB, witness).isEmpty() && !n.answer(WEB, "10.0.1.0/24").isEmpty());

      List<Long> times = new ArrayList<>();
      for (int i = 0; i < commands; i++) {
        boolean toBlue = i % 2 == 0;
        List<String> expected = List.of(toBlue ? BLUE : GREEN);
        Node via = c.node(i % 3);
        long t = System.nanoTime();
        Reply r =
            via.put(
                "/api/v1/services/web.example.test/weights",
                "{\"weights\":{\"blue\":%d,\"green\":%d},\"reason\":\"bench %d\"}"
                    .formatted(toBlue ? 1 : 0, toBlue ? 0 : 1, i));
        assertEquals(200, r.status(), r.body());
        c.awaitAll(
            "command " + i, Duration.ofSeconds(30), n -> n.answer(WEB, witness).equals(expected));
        times.add((System.nanoTime() - t) / 1_000_000);
      }
      Collections.sort(times);
      report(
          "command to every node's DNS answers: p50 %d ms, p99 %d ms, max %d ms (%d commands)"
              .formatted(
                  percentile(times, 50),
                  percentile(times, 99),
                  times.get(times.size() - 1),
                  times.size()));

      List<String> all = SluiceCluster.subnets(subnets);
      report(
          "divergence: %d of %d client subnets answered differently by the three nodes (%s)"
              .formatted(c.differences(WEB, all).size(), all.size(), WEB));
    }
  }

  @Test
  void leaderTakeover() throws Exception {
    Files.createDirectories(OUT.toAbsolutePath().getParent());
    try (ClusterBackends b = new ClusterBackends();
        // The default lease TTL, as a deployment would run.
        SluiceCluster c =
            SluiceCluster.startWithEtcd(dir.resolve("c"), b.body(), Duration.ofSeconds(5))) {
      List<Long> takeovers = new ArrayList<>();
      for (int round = 0; round < prop("takeovers", 5); round++) {
        c.awaitAll("a leader", Duration.ofSeconds(60), n -> c.leader() != null);
        Node leader = c.leader();
        long t = System.nanoTime();
        leader.kill();
        c.awaitAll(
            "a new leader",
            Duration.ofSeconds(60),
            n -> {
              Node l = c.leader();
              return l != null && l != leader;
            });
        takeovers.add((System.nanoTime() - t) / 1_000_000);
        leader.start();
        leader.awaitReady();
      }
      report(
          "leader takeover (SIGKILL of the leader to another node listed as leader, leaseTtl 5s): %s ms"
              .formatted(takeovers));
    }
  }

  @Test
  void etcdWritesWithTenThousandEndpoints() throws Exception {
    Files.createDirectories(OUT.toAbsolutePath().getParent());
    int pools = prop("pools", 100);
    int perPool = prop("perPool", 100);
    int outagePools = prop("outagePools", 10);
    int window = prop("windowSeconds", 60);
    try (Listener healthy = new Listener();
        Listener failing = new Listener()) {
      String body = endpointsBody(pools, perPool, outagePools, healthy.port(), failing.port());
      try (SluiceCluster c = SluiceCluster.startWithEtcd(dir.resolve("b"), body)) {
        // Every node's first round of checks of every endpoint, then a settled state.
        Thread.sleep(Duration.ofSeconds(prop("settleSeconds", 60)).toMillis());
        Map<String, Long> steadyKinds = new ConcurrentSkipListMap<>();
        long[] steady = c.etcdWrites(Duration.ofSeconds(window), steadyKinds);
        report(
            String.format(
                Locale.ROOT,
                "etcd writes in steady state, %d endpoints checked by 3 nodes: %.1f revisions/s,"
                    + " %.1f key writes/s (%d revisions, %d keys in %d s; keys by kind %s)",
                pools * perPool,
                steady[0] / (double) window,
                steady[1] / (double) window,
                steady[0],
                steady[1],
                window,
                steadyKinds));
        failing.close();
        Map<String, Long> outageKinds = new ConcurrentSkipListMap<>();
        long[] outage = c.etcdWrites(Duration.ofSeconds(window), outageKinds);
        report(
            String.format(
                Locale.ROOT,
                "etcd writes during an outage of %d of them: %.1f revisions/s, %.1f key writes/s"
                    + " (%d revisions, %d keys in the %d s after the outage began; keys by kind %s)",
                outagePools * perPool,
                outage[0] / (double) window,
                outage[1] / (double) window,
                outage[0],
                outage[1],
                window,
                outageKinds));
      }
    }
  }

  /**
   * {@code pools} pools of {@code perPool} endpoints each (addresses 127.1.P.E), TCP-checked on
   * {@code okPort}, except the last {@code outagePools} pools, checked on {@code outagePort}; one
   * service per pool.
   */
  static String endpointsBody(int pools, int perPool, int outagePools, int okPort, int outagePort) {
    StringBuilder y = new StringBuilder(SluiceCluster.REGIONS);
    y.append("probes: { maxInFlight: 512 }\npools:\n");
    for (int p = 0; p < pools; p++) {
      int port = p >= pools - outagePools ? outagePort : okPort;
      y.append("  p")
          .append(p)
          .append(":\n    health:\n      fullLink: { type: tcp, port: ")
          .append(port)
          .append(", interval: 20s, timeout: 2s }\n      downAfter: 2\n      fastRecheck: 1s\n")
          .append("    endpoints:\n");
      for (int e = 0; e < perPool; e++) {
        y.append("      - { name: e")
            .append(e)
            .append(", address: 127.1.")
            .append(p)
            .append('.')
            .append(e + 1)
            .append(" }\n");
      }
    }
    y.append(
        """
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
        """);
    for (int p = 0; p < pools; p++) {
      y.append("      - { name: s").append(p).append(", pools: [p").append(p).append("] }\n");
    }
    return y.toString();
  }

  /** A TCP listener on every loopback address that accepts and closes connections. */
  private static final class Listener implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Thread acceptor;

    Listener() throws IOException {
      server = ServerSocketChannel.open();
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress("0.0.0.0", 0), 4096);
      acceptor =
          new Thread(
              () -> {
                while (server.isOpen()) {
                  try (SocketChannel ch = server.accept()) {
                    // Accepted: the TCP check passes.
                  } catch (IOException closed) {
                    return;
                  }
                }
              },
              "bench-listener");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() throws IOException {
      return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
