package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.metrics.DivergenceMeters;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.Cidr;
import io.sluice.core.divergence.PeriodicDivergenceCheck;
import io.sluice.core.spi.ClusterMembers;
import io.sluice.core.testing.ManualTicker;
import io.sluice.dns.client.DnsjavaVerifier;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three whole Sluice nodes in this JVM, each with its own state directory and the same
 * configuration, compared over DNS by {@code sluice ctl verify --all-nodes} and by the periodic
 * in-node check: identical nodes agree on a thousand client subnets; a pool drained on one node
 * only shows as exactly the subnets of that pool's region, answered differently by that node.
 */
class ClusterDivergenceTest {
  static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 } }
        us: { location: { lat: 39.0, lon: -77.5 } }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: "2001:db8:e0::/48", region: eu }
          - { cidr: 10.2.0.0/16, region: us }
      pools:
        p-eu:
          region: eu
          endpoints: [ { name: a, address: 192.0.2.11 }, { name: b, address: "2001:db8::11" } ]
        p-us:
          region: us
          endpoints: [ { name: a, address: 198.51.100.21 }, { name: b, address: "2001:db8::21" } ]
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - name: app
              ttl: 30
              pools: [{ pool: p-eu, weight: 1 }, { pool: p-us, weight: 1 }]
              chain: [healthy, geo]
              traffic: { mode: manual }
      """;

  private static final Cidr EU_V4 = Cidr.parse("10.1.0.0/16");
  private static final Cidr EU_V6 = Cidr.parse("2001:db8:e0::/48");

  @TempDir static Path dir;
  private static final List<LiveNode> nodes = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    for (int i = 1; i <= 3; i++) {
      Path d = Files.createDirectories(dir.resolve("ns" + i));
      nodes.add(LiveNode.start(d, CONFIG));
    }
  }

  @AfterAll
  static void stop() {
    nodes.forEach(LiveNode::close);
  }

  @AfterEach
  void undrain() throws Exception {
    for (LiveNode n : nodes) {
      n.post("/api/v1/pools/p-eu/undrain", "{\"reason\": \"test over\"}");
    }
  }

  private static String dns(LiveNode n) {
    return "127.0.0.1:" + n.dnsPort();
  }

  private static String allNodes() {
    return String.join(",", nodes.stream().map(ClusterDivergenceTest::dns).toList());
  }

  private static LiveNode.CtlRun ctl(String... args) {
    LiveNode first = nodes.get(0);
    return LiveNode.ctl(
        Map.of("SLUICE_ADMIN_URL", first.adminUrl(), "SLUICE_TOKEN", first.token), args);
  }

  /** {@code sluice ctl verify --all-nodes app.example.test --nodes <all three> extra...}. */
  private static LiveNode.CtlRun verify(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of("verify", "--all-nodes", "app.example.test", "--nodes", allNodes()));
    args.addAll(List.of(extra));
    return ctl(args.toArray(String[]::new));
  }

  /** As {@link #verify}, with {@code --json}: the exit code and the parsed report. */
  private static JsonNode verifyJson(int expectedExit, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--json"));
    args.addAll(List.of(extra));
    LiveNode.CtlRun r = verify(args.toArray(String[]::new));
    assertEquals(expectedExit, r.exit(), r.out() + r.err());
    return LiveNode.JSON.readTree(r.out());
  }

  private static void drainEuOn(LiveNode n) throws Exception {
    LiveNode.Reply r = n.post("/api/v1/pools/p-eu/drain", "{\"reason\": \"divergence test\"}");
    assertEquals(200, r.status(), r.body());
  }

  @Test
  void identicalNodesAnswerAThousandSubnetsTheSame() throws Exception {
    LiveNode.CtlRun r = verify("--subnets", "1000");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("all 1000 subnets answered identically by 3 nodes"), r.out());

    JsonNode j = verifyJson(0, "--subnets", "1000", "--type", "AAAA");
    assertTrue(j.path("identical").asBoolean(), j.toString());
    assertEquals(1000, j.path("subnets").asInt());
    assertEquals(3, j.path("nodes").size());
    assertEquals(0, j.path("findings").size());
  }

  @Test
  void aPoolDrainedOnOneNodeOnlyShowsAsTheSubnetsOfItsRegion() throws Exception {
    LiveNode odd = nodes.get(1);
    drainEuOn(odd);

    JsonNode j = verifyJson(1, "--subnets", "1000");
    assertFalse(j.path("identical").asBoolean());
    JsonNode findings = j.path("findings");
    assertTrue(findings.size() > 0, j.toString());
    assertEquals(findings.size(), j.path("different").asInt());
    Set<String> euSubnets = new HashSet<>();
    for (JsonNode f : findings) {
      String subnet = f.path("subnet").asText();
      assertEquals("different", f.path("outcome").asText(), subnet);
      assertTrue(inside(EU_V4, subnet) || inside(EU_V6, subnet), "not an eu subnet: " + subnet);
      assertEquals(List.of(dns(odd)), strings(f.path("differing")), subnet);
      JsonNode answers = f.path("answers");
      assertEquals(
          "198.51.100.21", answers.path(dns(odd)).path("records").get(0).path("data").asText());
      assertEquals(
          "192.0.2.11",
          answers.path(dns(nodes.get(0))).path("records").get(0).path("data").asText());
      euSubnets.add(subnet);
    }
    // Both the IPv4 and the IPv6 networks of the drained pool's region were asked as.
    assertTrue(euSubnets.stream().anyMatch(s -> inside(EU_V4, s)), euSubnets.toString());
    assertTrue(euSubnets.stream().anyMatch(s -> inside(EU_V6, s)), euSubnets.toString());

    // Asked as given subnets: exactly the one in the drained pool's region differs.
    JsonNode g =
        verifyJson(
            1, "--subnet", "10.1.5.0/24", "--subnet", "10.2.0.0/24", "--subnet", "198.18.0.0/24");
    assertEquals(3, g.path("subnets").asInt());
    assertEquals(1, g.path("findings").size(), g.toString());
    assertEquals("10.1.5.0/24", g.path("findings").get(0).path("subnet").asText());

    LiveNode.CtlRun text = verify("--subnets", "20");
    assertEquals(1, text.exit(), text.out() + text.err());
    assertTrue(text.out().contains("DIFFERENT"), text.out());
    assertTrue(text.out().contains("of 20 subnets answered differently"), text.out());
    assertTrue(text.out().contains("NOERROR A 198.51.100.21"), text.out());
  }

  @Test
  void thePeriodicCheckCountsDifferingAnswers() throws Exception {
    List<ClusterMembers.Member> members = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      members.add(
          new ClusterMembers.Member(
              "ns" + (i + 1), "eu", dns(nodes.get(i)), null, i == 0, 0, true, 0));
    }
    ManualTicker ticker = new ManualTicker(1_764_400_000_000L);
    try (PrometheusMetrics metrics = new PrometheusMetrics()) {
      PeriodicDivergenceCheck check =
          PeriodicDivergenceCheck.create(
              nodes.get(0).store(),
              () -> members,
              // The configuration has no GeoIP database: nothing to sample.
              Map::of,
              new DnsjavaVerifier(),
              ticker);
      DivergenceMeters.register(metrics.registry(), check);
      PrometheusSamples before = PrometheusSamples.parse(metrics.scrape());
      assertEquals(0.0, before.value("sluice_cluster_divergence_checks_total", Map.of()));

      check.runOnce();
      PrometheusSamples same = PrometheusSamples.parse(metrics.scrape());
      assertEquals(0.0, same.value("sluice_cluster_divergent_answers", Map.of()));
      assertEquals(1.0, same.value("sluice_cluster_divergence_checks_total", Map.of()));
      assertEquals(
          1_764_400_000.0,
          same.value("sluice_cluster_divergence_last_run_timestamp_seconds", Map.of()));

      drainEuOn(nodes.get(2));
      ticker.advance(Duration.ofSeconds(60));
      check.runOnce();
      PrometheusSamples differ = PrometheusSamples.parse(metrics.scrape());
      double divergent = differ.value("sluice_cluster_divergent_answers", Map.of());
      assertTrue(divergent > 0, "divergent answers: " + divergent);
      assertEquals(check.last().divergent(), (long) divergent);
      assertEquals(2.0, differ.value("sluice_cluster_divergence_checks_total", Map.of()));
      assertEquals(
          1_764_400_060.0,
          differ.value("sluice_cluster_divergence_last_run_timestamp_seconds", Map.of()));
      assertEquals(0.0, differ.value("sluice_cluster_divergence_unanswered", Map.of()));
    }
  }

  @Test
  void aClusteredNodeRunsThePeriodicCheckByItselfAndExportsItsMetrics() throws Exception {
    Path d = Files.createDirectories(dir.resolve("clustered"));
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      String yaml =
          CONFIG
              + """
              cluster:
                node: ns1
                etcd: { endpoints: [%s] }
                divergence: { interval: 5s, subnets: 16 }
              """
                  .formatted(etcd.endpoints().get(0));
      try (LiveNode n = LiveNode.start(d, yaml)) {
        assertTrue(n.runtime.divergence() != null, "a clustered node runs the periodic check");
        // The first run comes one interval after the start; wait for it with a generous bound.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        PrometheusSamples m;
        do {
          Thread.sleep(200);
          m = PrometheusSamples.parse(n.get("/metrics").body());
        } while (m.value("sluice_cluster_divergence_checks_total", Map.of()) < 1
            && System.nanoTime() < deadline);
        // A scrape reads each meter in turn, so the one that saw the first run may have read the
        // timestamp before it finished: the next scrape comes after it.
        m = PrometheusSamples.parse(n.get("/metrics").body());
        assertTrue(m.value("sluice_cluster_divergence_checks_total", Map.of()) >= 1, "no run");
        assertEquals(0.0, m.value("sluice_cluster_divergent_answers", Map.of()));
        assertTrue(m.value("sluice_cluster_divergence_last_run_timestamp_seconds", Map.of()) > 0);
      }
    }
  }

  @Test
  void aSingleNodeRunsNoPeriodicCheck() {
    assertEquals(null, nodes.get(0).runtime.divergence());
  }

  @Test
  void aNodeThatDoesNotAnswerIsReportedAndFailsTheCheck() throws Exception {
    String silent;
    // A UDP port on loopback where nothing answers: the socket is bound, so nobody else is.
    try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      silent = "127.0.0.1:" + s.getLocalPort();
      LiveNode.CtlRun r =
          ctl(
              "--json",
              "verify",
              "--all-nodes",
              "app.example.test",
              "--nodes",
              dns(nodes.get(0)) + "," + silent,
              "--subnets",
              "3");
      assertEquals(1, r.exit(), r.out() + r.err());
      JsonNode j = LiveNode.JSON.readTree(r.out());
      assertEquals(3, j.path("unanswered").asInt(), r.out());
      assertEquals(0, j.path("different").asInt(), r.out());
      for (JsonNode f : j.path("findings")) {
        assertEquals(List.of(silent), strings(f.path("differing")));
        assertTrue(f.path("answers").path(silent).has("error"), f.toString());
      }
    }
  }

  @Test
  void withoutAListOfNodesTheClusterRouteIsAskedAndASingleNodeSaysSo() {
    LiveNode.CtlRun r = ctl("verify", "--all-nodes", "app.example.test");
    assertEquals(2, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("lists no live cluster members"), r.err());
    assertTrue(r.err().contains("--nodes HOST:PORT"), r.err());

    LiveNode.CtlRun bad = ctl("verify", "--all-nodes", "app.example.test", "--nodes", "nowhere");
    assertEquals(2, bad.exit(), bad.out() + bad.err());
    assertTrue(bad.err().contains("--nodes: expected HOST:PORT, was 'nowhere'"), bad.err());

    // Every bad subnet is named at once, before anything is asked.
    LiveNode.CtlRun subnets = verify("--subnet", "10.1.0.1/24", "--subnet", "nowhere");
    assertEquals(2, subnets.exit(), subnets.out() + subnets.err());
    assertTrue(subnets.err().contains("host bits set beyond /24: '10.1.0.1/24'"), subnets.err());
    assertTrue(
        subnets.err().contains("CIDR form such as 10.0.0.0/8, was 'nowhere'"), subnets.err());

    LiveNode.CtlRun both =
        ctl("verify", "--all-nodes", "app.example.test", "--dns", dns(nodes.get(0)));
    assertEquals(2, both.exit(), both.out() + both.err());
    assertTrue(both.err().contains("--dns and --all-nodes exclude each other"), both.err());

    LiveNode.CtlRun alone = ctl("verify", "app.example.test", "--nodes", allNodes());
    assertEquals(2, alone.exit(), alone.out() + alone.err());
    assertTrue(alone.err().contains("--nodes needs --all-nodes"), alone.err());
  }

  @Test
  void regionsOnlyTheGeoIpDatabaseKnowsAreSampledWithNetworksThatReallyMapThere() throws Exception {
    Path geoDir = Files.createDirectories(dir.resolve("geo"));
    Path db =
        Path.of(System.getProperty("user.dir"))
            .resolve("../gslb-policy/src/test/resources/geoip/GeoLite2-Country-Test.mmdb")
            .normalize();
    Files.copy(db, geoDir.resolve("country.mmdb"));
    String yaml =
        """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        regions: { eu: {}, us: {}, ap: {} }
        topology:
          geoip:
            database: country.mmdb
            rules:
              - { continent: EU, region: eu }
              - { continent: NA, region: us }
              - { continent: AS, region: ap }
        pools:
          p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.1 } ] }
          p-us: { region: us, endpoints: [ { name: a, address: 192.0.2.2 } ] }
          p-ap: { region: ap, endpoints: [ { name: a, address: 192.0.2.3 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            services:
              - name: app
                ttl: 10
                pools: [p-eu, p-us, p-ap]
                chain: [healthy, geo]
                traffic: { shiftTtl: 10 }
        """;
    Map<String, String> poolAddress =
        Map.of("eu", "192.0.2.1", "us", "192.0.2.2", "ap", "192.0.2.3");
    try (LiveNode geo = LiveNode.start(geoDir, yaml)) {
      JsonNode samples = geo.get("/api/v1/topology").json().path("geoipSamples");
      Set<String> regions = new HashSet<>();
      for (JsonNode sample : samples) {
        String region = sample.path("region").asText();
        String cidr = sample.path("cidr").asText();
        regions.add(region);
        // Asked as a client inside the sample, the node answers with that region's pool.
        List<String> answer = LiveNode.addresses(geo.query("app.example.test.", cidr));
        assertEquals(List.of(poolAddress.get(region)), answer, region + " " + cidr);
      }
      assertEquals(Set.of("eu", "us", "ap"), regions, samples.toString());

      // The periodic check on a service whose ttl is its shiftTtl, the node listed twice.
      ClusterMembers twice =
          () ->
              List.of(
                  new ClusterMembers.Member("g1", "eu", dns(geo), null, true, 0, true, 0),
                  new ClusterMembers.Member("g2", "eu", dns(geo), null, false, 0, true, 0));
      PeriodicDivergenceCheck check =
          PeriodicDivergenceCheck.create(
              geo.store(), twice, Map::of, new DnsjavaVerifier(), new ManualTicker());
      assertEquals(2, check.runOnce().size());
      assertEquals(0, check.last().divergent());
      assertEquals(0, check.last().unanswered());
    }
  }

  private static boolean inside(Cidr net, String subnet) {
    Cidr c = Cidr.parse(subnet);
    if (c.address().length != net.address().length || c.prefix() < net.prefix()) {
      return false;
    }
    for (int bit = 0; bit < net.prefix(); bit++) {
      int mask = 0x80 >>> (bit % 8);
      if ((c.address()[bit / 8] & mask) != (net.address()[bit / 8] & mask)) {
        return false;
      }
    }
    return true;
  }

  private static List<String> strings(JsonNode arr) {
    List<String> out = new ArrayList<>();
    arr.forEach(n -> out.add(n.asText()));
    return out;
  }
}
