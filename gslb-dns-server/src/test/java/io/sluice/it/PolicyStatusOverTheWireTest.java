package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * What status and the metrics say about the policy chain of a running node, checked against what
 * DNS clients really get: the shares of priority, weighted, geo and shifted services, fail-open
 * never handing out drained pools, a missing address family being NODATA rather than an outage, and
 * explain leaving the served-answer counters alone.
 */
class PolicyStatusOverTheWireTest {
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us, ap] }
        us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu, ap] }
        ap: { location: { lat: 22.3, lon: 114.2 }, proximity: [us, eu] }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: 10.2.0.0/16, region: us }
          - { cidr: 10.3.0.0/16, region: ap }
        residency:
          eu-only: { regions: [eu], pools: [eu-1, eu-2] }
      pools:
        eu-1:
          region: eu
          endpoints: [ { name: a, address: 192.0.2.11 }, { name: v6, address: "2001:db8::11" } ]
        eu-2:
          region: eu
          endpoints: [ { name: a, address: 192.0.2.13 }, { name: v6, address: "2001:db8::13" } ]
        us-1: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
        us-2: { region: us, endpoints: [ { name: a, address: 198.51.100.22 } ] }
        ap-1: { region: ap, endpoints: [ { name: a, address: 203.0.113.31 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - name: failover
              pools: [us-1, eu-1]
              chain: [healthy, priority]
              traffic: { mode: manual }
            - name: weighted
              pools: [{ pool: us-1, weight: 70 }, { pool: us-2, weight: 30 }]
              chain: [healthy, weighted(one)]
              traffic: { mode: manual }
            - name: geo
              pools: [eu-1, us-1, ap-1]
              chain: [healthy, geo]
              traffic: { mode: manual }
            - name: shifted
              pools: [us-1, eu-1]
              chain: [healthy, priority]
              traffic: { mode: manual }
            - name: eu-data
              pools: [eu-1, eu-2, us-1]
              chain: [healthy, residency(eu-only), geo]
              lastResort: { action: address, addresses: [192.0.2.250] }
              traffic: { mode: manual }
            - name: v4only
              pools: [us-1, us-2]
              chain: [healthy, geo]
              traffic: { mode: manual }
      """;

  private static final Map<String, String> POOL_OF =
      Map.of(
          "192.0.2.11", "eu-1",
          "192.0.2.13", "eu-2",
          "198.51.100.21", "us-1",
          "198.51.100.22", "us-2",
          "203.0.113.31", "ap-1");

  @TempDir static Path dir;
  private static LiveNode node;

  @BeforeAll
  static void start() throws Exception {
    node = LiveNode.start(dir, CONFIG);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  /** The status of {@code service}. */
  private static JsonNode statusOf(String service) throws Exception {
    JsonNode st = node.get("/api/v1/status").json();
    for (JsonNode s : st.path("services")) {
      if (s.path("service").asText().equals(service)) {
        return s;
      }
    }
    throw new AssertionError("no status for " + service + ": " + st);
  }

  /** The shares status shows for {@code service}. */
  private static Map<String, Double> statusShares(String service) throws Exception {
    Map<String, Double> out = new LinkedHashMap<>();
    statusOf(service)
        .path("shares")
        .properties()
        .forEach(e -> out.put(e.getKey(), e.getValue().asDouble()));
    return out;
  }

  /**
   * The share of clients (percent) each pool really gets over the wire: 250 client /24s in each of
   * the three regions, each answer's records counted by pool.
   */
  private static Map<String, Double> observedShares(String service) throws Exception {
    Map<String, Double> counts = new HashMap<>();
    int clients = 0;
    for (int region = 1; region <= 3; region++) {
      for (int i = 0; i < 250; i++) {
        String subnet = "10." + region + "." + i + ".0/24";
        List<String> a = LiveNode.addresses(node.query(service, subnet));
        clients++;
        for (String addr : a) {
          counts.merge(POOL_OF.get(addr), 100.0 / a.size(), Double::sum);
        }
      }
    }
    Map<String, Double> out = new HashMap<>();
    for (Map.Entry<String, Double> e : counts.entrySet()) {
      out.put(e.getKey(), e.getValue() / clients);
    }
    return out;
  }

  private static void assertSharesMatchTheWire(String service, double tolerance) throws Exception {
    Map<String, Double> shown = statusShares(service);
    Map<String, Double> seen = observedShares(service);
    for (Map.Entry<String, Double> e : shown.entrySet()) {
      double s = seen.getOrDefault(e.getKey(), 0.0);
      assertTrue(
          Math.abs(s - e.getValue()) <= tolerance,
          service + ": status shows " + shown + " but clients got " + seen);
    }
  }

  @Test
  void priorityShowsWhatEveryClientGets() throws Exception {
    assertEquals(Map.of("us-1", 100.0, "eu-1", 0.0), statusShares("failover.example.test."));
    assertSharesMatchTheWire("failover.example.test.", 0.0);
  }

  @Test
  void weightedAndGeoSharesMatchTheAnswers() throws Exception {
    assertEquals(Map.of("us-1", 70.0, "us-2", 30.0), statusShares("weighted.example.test."));
    assertSharesMatchTheWire("weighted.example.test.", 6.0);
    // One region each, every region counted equally.
    assertEquals(
        Map.of("eu-1", 33.3, "us-1", 33.3, "ap-1", 33.3), statusShares("geo.example.test."));
    assertSharesMatchTheWire("geo.example.test.", 0.1);
    JsonNode byRegion = statusOf("geo.example.test.").path("sharesByRegion");
    assertEquals(100.0, byRegion.path("eu").path("eu-1").asDouble(), byRegion.toString());
    assertEquals(0.0, byRegion.path("eu").path("us-1").asDouble(), byRegion.toString());
    assertEquals(100.0, byRegion.path("ap").path("ap-1").asDouble(), byRegion.toString());
  }

  @Test
  void aShiftedPriorityServiceShowsTheMovedClients() throws Exception {
    LiveNode.Reply move =
        node.post(
            "/api/v1/services/shifted.example.test/move",
            "{\"from\":[\"us-1\"],\"to\":[\"eu-1\"],\"steps\":[30,100],\"reason\":\"test\"}");
    assertEquals(200, move.status(), move.body());
    LiveNode.Reply abort =
        node.post("/api/v1/services/shifted.example.test/move/abort", "{\"reason\":\"hold\"}");
    assertEquals(200, abort.status(), abort.body());
    assertEquals(Map.of("us-1", 70.0, "eu-1", 30.0), statusShares("shifted.example.test."));
    assertSharesMatchTheWire("shifted.example.test.", 6.0);
  }

  @Test
  void failOpenNeverHandsOutDrainedPools() throws Exception {
    String svc = "eu-data.example.test.";
    assertEquals(
        List.of("192.0.2.11", "192.0.2.13"),
        LiveNode.addresses(node.query(svc, "10.1.0.0/24")).stream().sorted().toList());
    try {
      assertEquals(200, node.post("/api/v1/pools/eu-2/drain", "{\"reason\":\"t\"}").status());
      setVerdict(Verdict.DOWN, "eu-1/a", "eu-1/v6");
      // eu-1 is down, eu-2 drained: failing open may bring back eu-1, never eu-2.
      assertEquals(List.of("192.0.2.11"), LiveNode.addresses(node.query(svc, "10.1.0.0/24")));
      assertEquals(200, node.post("/api/v1/pools/eu-1/drain", "{\"reason\":\"t\"}").status());
      // Every pool the residency allows is drained: the last resort, not a drained pool.
      assertEquals(List.of("192.0.2.250"), LiveNode.addresses(node.query(svc, "10.1.0.0/24")));
      JsonNode e = node.get("/api/v1/explain?service=" + svc + "&client=10.1.0.0/24").json();
      assertTrue(e.toString().contains("drained"), e.toString());
    } finally {
      setVerdict(Verdict.UP, "eu-1/a", "eu-1/v6");
      node.post("/api/v1/pools/eu-1/undrain", "{}");
      node.post("/api/v1/pools/eu-2/undrain", "{}");
    }
  }

  @Test
  void aaaaForAnIpv4OnlyServiceIsNodataNotFailOpen() throws Exception {
    String svc = "v4only.example.test.";
    for (int i = 0; i < 5; i++) {
      Message m = node.query(svc, Type.AAAA, "10.2." + i + ".0/24", false);
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals(List.of(), LiveNode.addresses(m), "NODATA");
    }
    PrometheusSamples metrics = PrometheusSamples.parse(node.get("/metrics").body());
    assertEquals(
        Map.of(),
        metrics.series("sluice_policy_events_total").entrySet().stream()
            .filter(en -> en.getKey().contains(svc) && en.getValue() > 0)
            .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
        "no address of the family is not an outage");
    // The same pools with their IPv4 endpoints down are an outage: failing open is counted.
    setVerdict(Verdict.DOWN, "us-1/a", "us-2/a");
    try {
      node.query(svc, Type.A, "10.2.0.0/24", false);
    } finally {
      setVerdict(Verdict.UP, "us-1/a", "us-2/a");
    }
    metrics = PrometheusSamples.parse(node.get("/metrics").body());
    assertEquals(
        1.0,
        metrics.value("sluice_policy_events_total", Map.of("service", svc, "event", "fail-open")));
  }

  @Test
  void explainLeavesTheServedAnswerCountersUnchanged() throws Exception {
    String svc = "failover.example.test.";
    node.query(svc, "10.2.0.0/24");
    setVerdict(Verdict.DOWN, "us-1/a", "eu-1/a", "eu-1/v6");
    try {
      node.query(svc, "10.2.0.0/24");
      String before = countersOf(svc);
      for (int i = 0; i < 5; i++) {
        LiveNode.Reply r = node.get("/api/v1/explain?service=" + svc + "&client=10.2.0.0/24");
        assertEquals(200, r.status(), r.body());
        assertTrue(r.body().contains("fail-open"), r.body());
      }
      assertEquals(before, countersOf(svc));
    } finally {
      setVerdict(Verdict.UP, "us-1/a", "eu-1/a", "eu-1/v6");
    }
  }

  /** The answer and policy-event series of one service, as text. */
  private static String countersOf(String svc) throws Exception {
    PrometheusSamples m = PrometheusSamples.parse(node.get("/metrics").body());
    Map<String, Double> all = new java.util.TreeMap<>();
    for (String name :
        List.of(
            "sluice_policy_answers_total",
            "sluice_policy_events_total",
            "sluice_policy_answers_cross_region_total")) {
      m.series(name)
          .forEach(
              (k, v) -> {
                if (k.contains(svc)) {
                  all.put(k, v);
                }
              });
    }
    assertTrue(!all.isEmpty(), "the queries were counted");
    return all.toString();
  }

  private static void setVerdict(Verdict v, String... keys) {
    node.setVerdict(v, keys);
  }
}
