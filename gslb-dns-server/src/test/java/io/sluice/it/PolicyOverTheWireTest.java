package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;

/**
 * The policy chain of a running node, seen by a DNS client: the region comes from the ECS subnet
 * (else the resolver's address), the scope is the network-map entry, and a pool that goes down or
 * is drained through the admin API leaves the answers on the next query.
 */
class PolicyOverTheWireTest {
  private static final String GEO = "geo.example.test.";
  private static final List<String> EU_1 = List.of("192.0.2.11", "192.0.2.12");
  private static final List<String> EU_2 = List.of("192.0.2.13");
  private static final List<String> US_1 = List.of("198.51.100.21");
  private static final List<String> AP_1 = List.of("203.0.113.31");

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
          - { cidr: 127.0.0.0/8, region: ap }
      pools:
        eu-1:
          region: eu
          endpoints: [ { name: a, address: 192.0.2.11 }, { name: b, address: 192.0.2.12 } ]
        eu-2: { region: eu, endpoints: [ { name: a, address: 192.0.2.13 } ] }
        us-1: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
        ap-1: { region: ap, endpoints: [ { name: a, address: 203.0.113.31 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - name: geo
              ttl: 30
              pools: [eu-1, eu-2, us-1, ap-1]
              chain: [healthy, geo]
              traffic: { mode: manual }
      """;

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

  private static List<String> sorted(Message m) {
    return LiveNode.addresses(m).stream().sorted().toList();
  }

  private static List<String> union(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).sorted().toList();
  }

  @Test
  void regionsOfEcsSubnetsGetTheirOwnPoolsWithTheNetworkMapScope() throws Exception {
    Message eu = node.query(GEO, "10.1.7.0/24");
    assertEquals(Rcode.NOERROR, eu.getRcode());
    assertEquals(union(EU_1, EU_2), sorted(eu));
    assertEquals(16, LiveNode.scope(eu), "one answer for the whole 10.1.0.0/16 map entry");

    Message us = node.query(GEO, "10.2.200.0/24");
    assertEquals(US_1, sorted(us));
    // 10.3.0.0/16 is unmapped, so the default region us: both halves of 10.2.0.0/15 get us.
    assertEquals(15, LiveNode.scope(us), "adjacent networks with the same answer are merged");

    // Not in the map: the default region, us.
    Message other = node.query(GEO, "172.16.5.0/24");
    assertEquals(US_1, sorted(other));
    assertTrue(LiveNode.scope(other) >= 0, "an ECS query is answered with a scope");
  }

  @Test
  void withoutEcsTheResolverAddressDecides() throws Exception {
    Message m = node.query(GEO, null);
    assertEquals(AP_1, sorted(m), "127.0.0.1 is mapped to ap");
    assertEquals(-1, LiveNode.scope(m), "no ECS in the query, none in the answer");
  }

  @Test
  void aPoolMarkedDownLeavesTheAnswersOnTheNextQuery() throws Exception {
    assertEquals(union(EU_1, EU_2), sorted(node.query(GEO, "10.1.0.0/24")));
    setVerdict(Verdict.DOWN, "eu-1/a", "eu-1/b");
    try {
      assertEquals(EU_2, sorted(node.query(GEO, "10.1.0.0/24")));
    } finally {
      setVerdict(Verdict.UP, "eu-1/a", "eu-1/b");
    }
    assertEquals(union(EU_1, EU_2), sorted(node.query(GEO, "10.1.0.0/24")));
  }

  @Test
  void aPoolDrainedThroughTheAdminApiLeavesTheAnswers() throws Exception {
    LiveNode.Reply drain = node.post("/api/v1/pools/eu-2/drain", "{\"reason\": \"rack work\"}");
    assertEquals(200, drain.status(), drain.body());
    try {
      assertEquals(EU_1, sorted(node.query(GEO, "10.1.0.0/24")));
      // With eu-1 down as well, eu has no usable pool: the proximity list sends eu to us.
      setVerdict(Verdict.DOWN, "eu-1/a", "eu-1/b");
      try {
        assertEquals(US_1, sorted(node.query(GEO, "10.1.0.0/24")));
      } finally {
        setVerdict(Verdict.UP, "eu-1/a", "eu-1/b");
      }
    } finally {
      LiveNode.Reply undrain = node.post("/api/v1/pools/eu-2/undrain", "{}");
      assertEquals(200, undrain.status(), undrain.body());
    }
    assertEquals(union(EU_1, EU_2), sorted(node.query(GEO, "10.1.0.0/24")));
  }

  @Test
  void explainThroughTheAdminApiNamesTheRegionAndItsSource() throws Exception {
    LiveNode.Reply r = node.get("/api/v1/explain?service=geo.example.test&client=10.1.7.0/24");
    assertEquals(200, r.status(), r.body());
    JsonNode e = r.json();
    assertEquals("eu", e.path("region").asText(), r.body());
    assertTrue(e.path("regionSource").asText().startsWith("network map"), r.body());
    assertEquals(
        List.of("eu-1", "eu-2"),
        JsonText.strings(e.path("decision").path("pools")).stream().sorted().toList(),
        r.body());

    JsonNode unmapped =
        node.get("/api/v1/explain?service=geo.example.test&client=172.16.5.0/24").json();
    assertEquals("us", unmapped.path("region").asText());
    assertTrue(
        unmapped.path("regionSource").asText().startsWith("default region"), unmapped.toString());
  }

  /** Stands in for the probes: publishes a verdict for endpoints, as the health engine does. */
  private static void setVerdict(Verdict v, String... keys) {
    Map<String, EndpointHealth> changes = new HashMap<>();
    for (String k : keys) {
      changes.put(k, EndpointHealth.of(v, System.currentTimeMillis(), "set by the test"));
    }
    node.store().update(s -> s.withHealth(s.health().withAll(changes)));
  }
}
