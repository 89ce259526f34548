package io.sluice.it;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.testing.LoopbackPorts;
import io.sluice.it.LiveNode.Reply;
import io.sluice.server.app.SluiceChild;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSIDOption;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real Sluice cluster on loopback: the etcd members the test gives (usually a real 3-member
 * {@code EtcdCluster.start(3)} of the gslb-cluster test-jar) and N Sluice nodes {@code ns1..nsN},
 * each a child JVM running {@code sluice run} on its own configuration file, state directory, DNS
 * port and admin port, so that a node can be killed with SIGKILL in the middle of anything and
 * started again on the same state.
 *
 * <p>Every node's file is the same shared body (pools, zones, services: what the test gives) with
 * the node's own {@code stateDir} and {@code cluster:} section in front; its DNS and admin ports
 * are given on the command line ({@code --port}, {@code --admin-port}), node-local as they must be
 * for nodes sharing one configuration on one machine. Nodes are in the regions of {@link #REGIONS}
 * (ns1 eu-west, ns2 us-east, ns3 ap-east), which the body must declare (include {@link #REGIONS}).
 * Tests talk to nodes only as clients do: DNS with EDNS Client Subnet (dnsjava), the admin API with
 * the node's local admin token, and etcd's keys.
 */
final class SluiceCluster implements AutoCloseable {
  /** The key prefix of the test cluster in etcd. */
  static final String PREFIX = "/sluice/it";

  /** The regions the nodes are in, to be included in the body. */
  static final String REGIONS =
      """
      regions:
        eu-west: { location: { lat: 51.5, lon: -0.1 } }
        us-east: { location: { lat: 39.0, lon: -77.5 } }
        ap-east: { location: { lat: 22.3, lon: 114.2 } }
      """;

  private static final List<String> NODE_REGIONS = List.of("eu-west", "us-east", "ap-east");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Path dir;
  private final List<String> endpoints;
  private final List<Node> nodes = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
  private Client etcdClient;
  private EtcdCluster ownEtcd;

  private SluiceCluster(Path dir, List<String> endpoints) {
    this.dir = dir;
    this.endpoints = List.copyOf(endpoints);
  }

  /**
   * Starts a real 3-member etcd on loopback and three nodes on it with {@code body} as their shared
   * configuration; closing the cluster stops both. Skips without etcd (fails under CI=true).
   */
  static SluiceCluster startWithEtcd(Path dir, String body) throws Exception {
    return startWithEtcd(dir, body, Duration.ofSeconds(3));
  }

  /** As {@link #startWithEtcd(Path, String)} with {@code leaseTtl} as the nodes' lease TTL. */
  static SluiceCluster startWithEtcd(Path dir, String body, Duration leaseTtl) throws Exception {
    EtcdCluster etcd = EtcdCluster.start(3);
    try {
      SluiceCluster c = start(dir, etcd.endpoints(), 3, body, leaseTtl);
      c.ownEtcd = etcd;
      return c;
    } catch (Exception | Error e) {
      etcd.close();
      throw e;
    }
  }

  /** The etcd members started by {@link #startWithEtcd}, to kill and restart them. */
  EtcdCluster etcd() {
    return ownEtcd;
  }

  /**
   * Starts {@code size} nodes on the etcd members at {@code etcdEndpoints} with {@code body} as
   * their shared configuration and {@code leaseTtl} as {@code cluster.leaseTtl}; returns once every
   * node is ready (its admin API answers {@code /readyz} with 200).
   */
  static SluiceCluster start(Path dir, List<String> etcdEndpoints, int size, String body)
      throws Exception {
    return start(dir, etcdEndpoints, size, body, Duration.ofSeconds(3));
  }

  /** As {@link #start(Path, List, int, String)} with another lease TTL. */
  static SluiceCluster start(
      Path dir, List<String> etcdEndpoints, int size, String body, Duration leaseTtl)
      throws Exception {
    SluiceCluster c = new SluiceCluster(dir, etcdEndpoints);
    try {
      for (int i = 0; i < size; i++) {
        c.nodes.add(c.new Node("ns" + (i + 1), NODE_REGIONS.get(i % NODE_REGIONS.size())));
      }
      for (Node n : c.nodes) {
        n.writeConfig(body, leaseTtl);
      }
      // The first node bootstraps the empty cluster from its file; the others join it.
      c.nodes.get(0).start();
      c.nodes.get(0).awaitReady();
      for (Node n : c.nodes.subList(1, size)) {
        n.start();
      }
      for (Node n : c.nodes) {
        n.awaitReady();
      }
      return c;
    } catch (Exception | Error e) {
      c.close();
      throw e;
    }
  }

  /** The nodes, ns1 first. */
  List<Node> nodes() {
    return List.copyOf(nodes);
  }

  /** Node {@code i} (0 = ns1). */
  Node node(int i) {
    return nodes.get(i);
  }

  /** The nodes whose process is running. */
  List<Node> live() {
    return nodes.stream().filter(Node::alive).toList();
  }

  /** The etcd endpoints the nodes use. */
  List<String> etcdEndpoints() {
    return endpoints;
  }

  /** {@code n} distinct IPv4 client subnets (/24) for ECS queries. */
  static List<String> subnets(int n) {
    if (n > 65536) {
      throw new IllegalArgumentException("at most 65536 subnets");
    }
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add("10." + (i / 256) + "." + (i % 256) + ".0/24");
    }
    return out;
  }

  /** The leader as the live nodes' {@code GET /api/v1/cluster} says, or null when none says. */
  Node leader() {
    for (Node n : live()) {
      try {
        Reply r = n.get("/api/v1/cluster");
        if (r.status() != 200) {
          continue;
        }
        String name = leaderName(r.json());
        if (name != null) {
          return nodes.stream().filter(x -> x.name.equals(name)).findFirst().orElse(null);
        }
      } catch (IOException e) {
        // This node does not answer now: ask the next.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /** The name of the member marked leader in a cluster listing (role or a leader flag). */
  static String leaderName(JsonNode cluster) {
    JsonNode list = cluster.has("members") ? cluster.get("members") : cluster.path("nodes");
    for (JsonNode m : list) {
      if (m.path("leader").asBoolean(false) || "leader".equalsIgnoreCase(m.path("role").asText())) {
        return m.path("node").asText(m.path("name").asText());
      }
    }
    return null;
  }

  /** The current revision of etcd (the count of its writes so far). */
  long etcdRevision() throws Exception {
    return etcdClient()
        .getKVClient()
        .get(ByteSequence.from(PREFIX + "/state", StandardCharsets.UTF_8))
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }

  /**
   * Counts for {@code window} what etcd writes under the cluster prefix: revisions (each one
   * transaction) and key writes (puts and deletes, several per transaction when batched).
   */
  long[] etcdWrites(Duration window) throws Exception {
    return etcdWrites(window, new ConcurrentHashMap<>());
  }

  /**
   * As {@link #etcdWrites(Duration)}, adding the key writes per first key segment to {@code
   * byKind}.
   */
  long[] etcdWrites(Duration window, Map<String, Long> byKind) throws Exception {
    ByteSequence p = ByteSequence.from(PREFIX + "/", StandardCharsets.UTF_8);
    AtomicLong keys = new AtomicLong();
    long r0 = etcdRevision();
    try (Watch.Watcher w =
        etcdClient()
            .getWatchClient()
            .watch(
                p,
                WatchOption.builder().isPrefix(true).withRevision(r0 + 1).build(),
                r -> {
                  keys.addAndGet(r.getEvents().size());
                  r.getEvents()
                      .forEach(
                          e -> {
                            String k =
                                e.getKeyValue()
                                    .getKey()
                                    .toString(StandardCharsets.UTF_8)
                                    .substring(PREFIX.length() + 1);
                            byKind.merge(k.split("/")[0], 1L, Long::sum);
                          });
                })) {
      Thread.sleep(window.toMillis());
      long r1 = etcdRevision();
      // Let the watch deliver the events up to r1.
      Thread.sleep(1000);
      return new long[] {r1 - r0, keys.get()};
    }
  }

  /** Every key under the cluster prefix starting with {@code keyPrefix}, with its value. */
  Map<String, String> etcdKeys(String keyPrefix) throws Exception {
    ByteSequence p = ByteSequence.from(PREFIX + "/" + keyPrefix, StandardCharsets.UTF_8);
    Map<String, String> out = new HashMap<>();
    for (KeyValue kv :
        etcdClient()
            .getKVClient()
            .get(p, GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS)
            .getKvs()) {
      out.put(
          kv.getKey().toString(StandardCharsets.UTF_8).substring(PREFIX.length() + 1),
          kv.getValue().toString(StandardCharsets.UTF_8));
    }
    return out;
  }

  private synchronized Client etcdClient() {
    if (etcdClient == null) {
      etcdClient = Client.builder().endpoints(endpoints.toArray(String[]::new)).build();
    }
    return etcdClient;
  }

  /** Whether every live node answers {@code name} identically for every one of {@code subnets}. */
  List<String> differences(String name, List<String> subnets) throws IOException {
    List<String> out = new ArrayList<>();
    List<Node> live = live();
    List<List<List<String>>> perNode = new ArrayList<>();
    for (Node n : live) {
      perNode.add(n.answers(name, subnets));
    }
    for (int i = 0; i < subnets.size(); i++) {
      for (int k = 1; k < live.size(); k++) {
        if (!perNode.get(k).get(i).equals(perNode.get(0).get(i))) {
          out.add(
              subnets.get(i)
                  + ": "
                  + live.get(0).name
                  + " "
                  + perNode.get(0).get(i)
                  + " vs "
                  + live.get(k).name
                  + " "
                  + perNode.get(k).get(i));
        }
      }
    }
    return out;
  }

  /** A condition a node is waited for. */
  interface NodeCheck {
    boolean holds(Node n) throws Exception;
  }

  /**
   * Waits (at most {@code bound}) until {@code check} holds on every live node and returns how long
   * it took in milliseconds, from when this was called. Fails naming the nodes it does not hold on.
   */
  long awaitAll(String what, Duration bound, NodeCheck check) throws Exception {
    long start = System.nanoTime();
    long deadline = start + bound.toNanos();
    List<Node> pending = new ArrayList<>(live());
    while (true) {
      pending.removeIf(
          n -> {
            try {
              return check.holds(n);
            } catch (Exception e) {
              return false;
            }
          });
      if (pending.isEmpty()) {
        return (System.nanoTime() - start) / 1_000_000;
      }
      if (System.nanoTime() > deadline) {
        fail(
            "timed out after "
                + bound.toSeconds()
                + " s waiting for "
                + what
                + " on "
                + pending.stream().map(n -> n.name).collect(Collectors.joining(", ")));
      }
      Thread.sleep(10);
    }
  }

  /** Prints a measured figure for the test report (measured, never asserted). */
  static void measured(String what, long millis) {
    System.out.println("[cluster figure] " + what + ": " + millis + " ms");
  }

  @Override
  public void close() {
    for (Node n : nodes) {
      n.kill();
    }
    if (etcdClient != null) {
      etcdClient.close();
    }
    if (ownEtcd != null) {
      ownEtcd.close();
    }
  }

  /** One Sluice node: a child JVM with its own ports, state directory and configuration file. */
  final class Node {
    final String name;
    final String region;
    final Path home;
    final Path configFile;
    final Path log;
    final int dnsPort;
    final int adminPort;
    private Process process;
    private String token;

    private Node(String name, String region) throws IOException {
      this.name = name;
      this.region = region;
      this.home = Files.createDirectories(dir.resolve(name));
      this.configFile = home.resolve("sluice.yaml");
      this.log = home.resolve("sluice.log");
      this.dnsPort = LoopbackPorts.reserve();
      this.adminPort = LoopbackPorts.reserve();
    }

    void writeConfig(String body, Duration leaseTtl) throws IOException {
      String etcdList =
          endpoints.stream().map(e -> "\"" + e + "\"").collect(Collectors.joining(", "));
      String head =
          """
          dns: { listen: [127.0.0.1], threads: 1, nsid: shared-nsid }
          admin: { listen: 127.0.0.1 }
          stateDir: %s
          cluster:
            node: %s
            region: %s
            etcd: { endpoints: [%s], prefix: %s, timeout: 2s }
            leaseTtl: %ds
            advertise: { dns: "127.0.0.1:%d", admin: "http://127.0.0.1:%d" }
            divergence: { interval: 0s }
          """
              .formatted(
                  home.resolve("state"),
                  name,
                  region,
                  etcdList,
                  PREFIX,
                  leaseTtl.toSeconds(),
                  dnsPort,
                  adminPort);
      Files.writeString(configFile, head + body.stripIndent());
    }

    /** Starts the node's process (again, after a kill, on the same state and ports). */
    void start() throws IOException {
      if (alive()) {
        return;
      }
      Files.writeString(
          log,
          "---- start " + System.currentTimeMillis() + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      process =
          new ProcessBuilder(
                  SluiceChild.command(
                      // More for the benchmark's 10,000 endpoints (bench/cluster-bench.sh).
                      Integer.getInteger("sluice.it.nodeHeapMb", 192),
                      "run",
                      "--config",
                      configFile.toString(),
                      // Node-local, as the ports of nodes sharing one configuration are.
                      "--port",
                      Integer.toString(dnsPort),
                      "--admin-port",
                      Integer.toString(adminPort),
                      "--nsid",
                      name))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      token = null;
    }

    /** Waits until the node's admin API says it is ready; fails with its log if it exits. */
    void awaitReady() throws Exception {
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        if (!alive()) {
          fail(name + " exited (" + process.exitValue() + "):\n" + logTail());
        }
        try {
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create(adminUrl() + "/readyz"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200) {
            token =
                Files.readString(home.resolve("state/admin.token"), StandardCharsets.UTF_8).trim();
            return;
          }
        } catch (IOException notYet) {
          // Not listening yet.
        }
        Thread.sleep(100);
      }
      fail(name + " was not ready within " + START_TIMEOUT.toSeconds() + " s:\n" + logTail());
    }

    /** The last lines of the node's log, for failure messages. */
    String logTail() {
      try {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    boolean alive() {
      return process != null && process.isAlive();
    }

    /** The process id (to tell this node's probes apart at a backend). */
    long pid() {
      return process.pid();
    }

    /** SIGKILL, as a crash: no shutdown hook runs, no lease is revoked. */
    void kill() {
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
        try {
          process.waitFor(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    String adminUrl() {
      return "http://127.0.0.1:" + adminPort;
    }

    // ---- DNS ----

    /** The sorted answer addresses of {@code name}/A for a client in {@code subnet}. */
    List<String> answer(String name, String subnet) throws IOException {
      SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", dnsPort));
      r.setTimeout(Duration.ofSeconds(2));
      Message m = r.send(LiveNode.queryMessage(name, Type.A, subnet));
      return LiveNode.addresses(m).stream().sorted().toList();
    }

    /** The answers for every subnet, in order, over one resolver. */
    List<List<String>> answers(String name, List<String> subnets) throws IOException {
      SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", dnsPort));
      r.setTimeout(Duration.ofSeconds(2));
      List<List<String>> out = new ArrayList<>(subnets.size());
      for (String s : subnets) {
        out.add(
            LiveNode.addresses(r.send(LiveNode.queryMessage(name, Type.A, s))).stream()
                .sorted()
                .toList());
      }
      return out;
    }

    /** The NSID this node sends to a query that asks for it (RFC 5001), or null. */
    String nsid(String name) throws IOException {
      SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", dnsPort));
      r.setTimeout(Duration.ofSeconds(2));
      Message q = LiveNode.queryMessage(name, Type.A, null);
      q.addRecord(
          new OPTRecord(1232, 0, 0, 0, List.of(new NSIDOption(new byte[0]))), Section.ADDITIONAL);
      OPTRecord opt = r.send(q).getOPT();
      if (opt == null) {
        return null;
      }
      List<EDNSOption> found = opt.getOptions(EDNSOption.Code.NSID);
      if (found.isEmpty()) {
        return null;
      }
      byte[] wire = found.get(0).toWire(); // code, length, data
      return new String(wire, 4, wire.length - 4, StandardCharsets.UTF_8);
    }

    /** Whether this node answers {@code expected} to every one of {@code subnets}. */
    boolean answersAll(String name, List<String> subnets, List<String> expected)
        throws IOException {
      return answers(name, subnets).stream().allMatch(expected::equals);
    }

    // ---- admin API ----

    Reply get(String path) throws IOException, InterruptedException {
      return send(HttpRequest.newBuilder(URI.create(adminUrl() + path)).GET());
    }

    Reply post(String path, String body) throws IOException, InterruptedException {
      return send(
          HttpRequest.newBuilder(URI.create(adminUrl() + path))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    Reply put(String path, String body) throws IOException, InterruptedException {
      return send(
          HttpRequest.newBuilder(URI.create(adminUrl() + path))
              .header("Content-Type", "application/json")
              .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    private Reply send(HttpRequest.Builder b) throws IOException, InterruptedException {
      HttpResponse<String> r =
          http.send(
              b.header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(15)).build(),
              HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body());
    }

    /** The value of the metric series {@code name} with {@code labels}, NaN when absent. */
    double metric(String metric, Map<String, String> labels) throws Exception {
      PrometheusSamples s = PrometheusSamples.parse(get("/metrics").body());
      Double v = s.series(metric).get(PrometheusSamples.key(metric, labels));
      return v == null ? Double.NaN : v;
    }

    /** The service's view ({@code GET /api/v1/services/NAME}). */
    JsonNode service(String fqdn) throws Exception {
      Reply r = get("/api/v1/services/" + stripDot(fqdn));
      if (r.status() != 200) {
        throw new IOException(name + ": " + r);
      }
      return r.json();
    }

    /**
     * The weight of {@code pool} in the node's view of the service (the plan's, else configured).
     */
    static int weight(JsonNode service, String pool) {
      for (JsonNode p : service.path("pools")) {
        if (p.path("pool").asText().equals(pool)) {
          return p.path("weight").asInt();
        }
      }
      throw new AssertionError("no pool " + pool + " in " + service);
    }

    /** The switch records of a service. */
    JsonNode switches(String fqdn) throws Exception {
      return get("/api/v1/switches?service=" + stripDot(fqdn)).json().path("switches");
    }

    /** The audit events, newest first, at most 1000. */
    JsonNode audit() throws Exception {
      return get("/api/v1/audit?limit=1000").json().path("events");
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static String stripDot(String fqdn) {
    return fqdn.endsWith(".") ? fqdn.substring(0, fqdn.length() - 1) : fqdn;
  }

  /** The pids of {@code nodes}, to make a backend refuse their probes. */
  static Set<Long> pids(Node... nodes) {
    Set<Long> out = new HashSet<>();
    for (Node n : nodes) {
      out.add(n.pid());
    }
    return out;
  }
}
