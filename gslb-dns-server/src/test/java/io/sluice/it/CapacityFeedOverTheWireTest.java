package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.sluice.admin.auth.TokenAuthenticator;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code capacity} step of a running node acting on real load feeds: a load pushed through the
 * admin API (operator token, strict body, audited) and a load pulled from a Prometheus-compatible
 * HTTP server the test runs, both seen in the answers of real DNS queries, in status and explain.
 */
class CapacityFeedOverTheWireTest {
  private static final String ADMIN = "admin-token-for-the-capacity-test";
  private static final String OPERATOR = "operator-token-for-the-capacity-test";
  private static final String VIEWER = "viewer-token-for-the-capacity-test";
  private static final String SVC = "capacity.example.test.";
  private static final String EU_CLIENT = "10.1.0.0/24";
  private static final String EU_1 = "192.0.2.11";
  private static final String EU_2 = "192.0.2.13";
  private static final String US_1 = "198.51.100.21";

  /** What the Prometheus stand-in answers per pool label. */
  private static final Map<String, String> PROM_VALUES = new ConcurrentHashMap<>();

  @TempDir static Path dir;
  private static HttpServer prometheus;
  private static LiveNode node;

  @BeforeAll
  static void start() throws Exception {
    prometheus = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    prometheus.createContext(
        "/api/v1/query",
        ex -> {
          String q =
              java.net.URLDecoder.decode(ex.getRequestURI().getRawQuery(), StandardCharsets.UTF_8);
          String pool = q.substring(q.indexOf("pool=\"") + 6, q.lastIndexOf('"'));
          String v = PROM_VALUES.getOrDefault(pool, "0");
          byte[] body =
              ("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                      + "[{\"metric\":{},\"value\":[1700000000,\""
                      + v
                      + "\"]}]}}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          try (OutputStream o = ex.getResponseBody()) {
            o.write(body);
          }
        });
    prometheus.start();
    PROM_VALUES.put("eu-2", "100");
    String yaml =
        """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin:
          listen: 127.0.0.1
          port: 0
          tokens:
            - { name: ops, role: admin, sha256: %s }
            - { name: oncall, role: operator, sha256: %s }
            - { name: grafana, role: viewer, sha256: %s }
        stateDir: state
        regions:
          eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us] }
          us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu] }
        topology:
          defaultRegion: us
          networks:
            - { cidr: 10.1.0.0/16, region: eu }
        pools:
          eu-1:
            region: eu
            capacity: 1000
            endpoints: [ { name: a, address: 192.0.2.11 } ]
          eu-2:
            region: eu
            capacity: 1000
            load:
              url: http://127.0.0.1:%d
              query: 'sum(active_connections{pool="eu-2"})'
              interval: 200ms
              staleAfter: 1h
            endpoints: [ { name: a, address: 192.0.2.13 } ]
          eu-3:
            region: eu
            capacity: 100
            load: { staleAfter: 3s }
            endpoints: [ { name: a, address: 192.0.2.14 } ]
          us-1:
            region: us
            capacity: 1000
            endpoints: [ { name: a, address: 198.51.100.21 } ]
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
              - name: capacity
                pools: [eu-1, eu-2, us-1]
                chain: [healthy, geo, capacity(80)]
                traffic: { mode: manual }
              - name: short
                pools: [eu-3, us-1]
                chain: [healthy, geo, capacity(80)]
                traffic: { mode: manual }
        """
            .formatted(
                TokenAuthenticator.hash(ADMIN),
                TokenAuthenticator.hash(OPERATOR),
                TokenAuthenticator.hash(VIEWER),
                prometheus.getAddress().getPort());
    node = LiveNode.start(dir, yaml, ADMIN);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
    if (prometheus != null) {
      prometheus.stop(0);
    }
  }

  private static List<String> answer() throws Exception {
    return LiveNode.addresses(node.query(SVC, EU_CLIENT)).stream().sorted().toList();
  }

  /** Queries until the answer is {@code expected}; the pull runs on the node's own schedule. */
  private static void awaitAnswer(List<String> expected) throws Exception {
    List<String> last = null;
    for (int i = 0; i < 200; i++) {
      last = answer();
      if (last.equals(expected)) {
        return;
      }
      Thread.sleep(50);
    }
    assertEquals(expected, last, "the answer never became " + expected);
  }

  private static LiveNode.Reply pushLoad(String pool, String body, String token) throws Exception {
    return node.put("/api/v1/pools/" + pool + "/load", body, token);
  }

  @Test
  void pushedAndPulledLoadsMoveTheAnswersOverTheWire() throws Exception {
    // The pulled eu-2 load (100 of 1000) leaves headroom: both EU pools answer.
    awaitAnswer(List.of(EU_1, EU_2));
    JsonNode pool = node.get("/api/v1/pools/eu-2").json();
    assertEquals("prometheus", pool.path("load").path("source").asText(), pool.toString());
    assertEquals(100.0, pool.path("load").path("value").asDouble(), pool.toString());

    // An operator pushes eu-1 above its 80 % watermark: eu-1 takes no new share.
    LiveNode.Reply r = pushLoad("eu-1", "{\"load\": 850, \"reason\": \"lb export\"}", OPERATOR);
    assertEquals(200, r.status(), r.body());
    assertEquals(85.0, r.json().path("load").path("percentOfCapacity").asDouble(), r.body());
    assertEquals(List.of(EU_2), answer());

    // The Prometheus query reports eu-2 full as well: the overflow goes to the nearest headroom.
    PROM_VALUES.put("eu-2", "900");
    awaitAnswer(List.of(US_1));
    JsonNode e = node.get("/api/v1/explain?service=" + SVC + "&client=" + EU_CLIENT).json();
    String steps = e.path("steps").toString();
    assertTrue(steps.contains("eu-1 850 of 1000"), steps);
    assertTrue(steps.contains("overflow"), steps);

    // Load back under the watermark: the pools take share again.
    PROM_VALUES.put("eu-2", "100");
    assertEquals(200, pushLoad("eu-1", "{\"load\": 10}", OPERATOR).status());
    awaitAnswer(List.of(EU_1, EU_2));

    JsonNode audit = node.get("/api/v1/audit").json();
    assertTrue(audit.toString().contains("pool-load"), audit.toString());
    assertTrue(audit.toString().contains("oncall"), "the pushing operator is the actor");
  }

  @Test
  void aLoadOlderThanItsStaleAfterIsIgnoredAndExplainAndStatusSaySo() throws Exception {
    String svc = "short.example.test.";
    assertEquals(List.of("192.0.2.14"), LiveNode.addresses(node.query(svc, EU_CLIENT)));
    assertEquals(200, pushLoad("eu-3", "{\"load\": 95}", OPERATOR).status());
    assertEquals(List.of(US_1), LiveNode.addresses(node.query(svc, EU_CLIENT)));
    // Nobody pushes again: after staleAfter (3s) the node's feed marks the load stale and the
    // capacity step ignores it, so eu-3 answers again.
    List<String> last = null;
    for (int i = 0; i < 300 && !List.of("192.0.2.14").equals(last); i++) {
      Thread.sleep(50);
      last = LiveNode.addresses(node.query(svc, EU_CLIENT));
    }
    assertEquals(List.of("192.0.2.14"), last, "a stale load is ignored");
    JsonNode pool = node.get("/api/v1/pools/eu-3").json();
    assertTrue(pool.path("load").path("stale").asBoolean(), pool.toString());
    assertEquals(3, pool.path("load").path("staleAfterSeconds").asInt(), pool.toString());
    JsonNode status = node.get("/api/v1/status").json();
    assertTrue(status.path("pools").toString().contains("\"stale\":true"), status.toString());
    JsonNode e = node.get("/api/v1/explain?service=" + svc + "&client=" + EU_CLIENT).json();
    assertTrue(e.path("steps").toString().contains("eu-3 stale"), e.toString());
  }

  @Test
  void pushingLoadNeedsAnOperatorTokenAndAValidBody() throws Exception {
    assertEquals(401, pushLoad("eu-1", "{\"load\": 900}", "no-such-token").status());
    assertEquals(403, pushLoad("eu-1", "{\"load\": 900}", VIEWER).status());
    assertBadRequest(pushLoad("eu-1", "{\"lod\": 900}", OPERATOR), "lod");
    assertBadRequest(pushLoad("eu-1", "{\"load\": \"900\"}", OPERATOR), "load");
    assertBadRequest(pushLoad("eu-1", "{\"load\": -1}", OPERATOR), "load");
    assertBadRequest(pushLoad("eu-1", "{}", OPERATOR), "load");
    assertEquals(404, pushLoad("nowhere", "{\"load\": 1}", OPERATOR).status());
    // None of these reached the answers.
    JsonNode pool = node.get("/api/v1/pools/eu-1").json();
    assertTrue(
        pool.path("load").isNull() || pool.path("load").path("value").asDouble() < 800,
        pool.toString());
  }

  private static void assertBadRequest(LiveNode.Reply r, String field) throws Exception {
    assertEquals(400, r.status(), r.body());
    assertTrue(r.body().contains(field), r.body());
  }
}
