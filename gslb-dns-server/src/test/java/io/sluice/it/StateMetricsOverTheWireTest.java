package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Type;

/**
 * The state metrics of a real node, scraped over HTTP: counters an alert takes the increase of are
 * exported at 0 from start, and the state gauges (verdicts and vantage agreement from real probes
 * of a real HTTP backend, usable endpoints, drains, freezes, ramps, pending confirmations) follow
 * operator commands and configuration reloads.
 */
class StateMetricsOverTheWireTest {
  private static final String APP = "app.example.test.";
  private static final String WEB = "web.example.test.";

  @TempDir Path dir;

  /** The configuration with {@code backendPort} checked for p-eu/a and {@code extraPool}. */
  static String config(int backendPort, String extraPool, String extraService) {
    return """
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
        pools:
          p-eu:
            region: eu
            endpoints: [ { name: a, address: 127.0.0.1 } ]
            health:
              upAfter: 1
              fullLink: { type: http, port: %d, path: /ready, interval: 1s }
          p-us:
            region: us
            endpoints: [ { name: a, address: 198.51.100.21 }, { name: b, address: 198.51.100.22 } ]
        %s
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
              - name: app
                pools: [{ pool: p-eu, weight: 1 }, { pool: p-us, weight: 1 }]
                chain: [healthy, geo, weighted]
                crossRegionLimit: 10
                traffic: { mode: manual, steps: [10, 50, 100], window: 10m }
        %s
        """
        .formatted(backendPort, extraPool, extraService);
  }

  static final String POOL_X =
      """
        p-x:
          region: us
          endpoints: [ { name: a, address: 203.0.113.7 } ]
      """;
  static final String SERVICE_WEB =
      """
            - name: web
              pools: [{ pool: p-x, weight: 1 }, { pool: p-us, weight: 1 }]
              traffic: { mode: auto-with-confirm }
      """;
  static final String POOL_AP =
      """
        p-ap:
          region: us
          endpoints: [ { name: a, address: 203.0.113.9 } ]
      """;

  @Test
  void countersAreExportedAtZeroRightAfterStart() throws Exception {
    try (Backend backend = new Backend("127.0.0.1");
        LiveNode node = LiveNode.start(dir, config(backend.port(), POOL_X, SERVICE_WEB))) {
      PrometheusSamples s = scrape(node);
      for (String service : Set.of(APP, WEB)) {
        zero(s, "sluice_policy_answers_nearest_total", "service", service);
        zero(s, "sluice_policy_answers_cross_region_total", "service", service);
        zero(s, "sluice_traffic_ramp_steps_total", "service", service);
        zero(s, "sluice_traffic_rollbacks_total", "service", service);
        for (String event :
            Set.of("fail-open", "fail-closed", "drained-last-resort", "residency-last-resort")) {
          zero(s, "sluice_policy_events_total", "service", service, "event", event);
        }
        for (String kind : Set.of("weights", "move", "failover", "failback")) {
          zero(s, "sluice_traffic_ramps_started_total", "service", service, "kind", kind);
        }
      }
      zero(s, "sluice_policy_answers_total", "service", APP, "pool", "p-eu");
      zero(s, "sluice_policy_answers_total", "service", APP, "pool", "p-us");
      zero(s, "sluice_policy_answers_total", "service", WEB, "pool", "p-x");
      zero(s, "sluice_traffic_rollbacks_total", "service", "all");
      zero(s, "sluice_config_reloads_total", "result", "ok");
      zero(s, "sluice_config_reloads_total", "result", "rejected");
      zero(
          s,
          "sluice_health_verdict_changes_total",
          "endpoint",
          "p-eu/a",
          "from",
          "UP",
          "to",
          "DOWN");
      assertFalse(s.series("sluice_probe_path_impaired").isEmpty(), "no probe path series");
      assertEquals(1.0, value(s, "sluice_config_last_reload_successful"));
      assertEquals(1.0, value(s, "sluice_state_store_healthy"));

      // The first answers move counters that were there: no new series of answers appear.
      Set<String> before = s.series("sluice_policy_answers_total").keySet();
      for (int i = 0; i < 5; i++) {
        assertFalse(LiveNode.addresses(node.query(APP, Type.A, "10.1.2.0/24", false)).isEmpty());
      }
      PrometheusSamples after = scrape(node);
      assertEquals(before, after.series("sluice_policy_answers_total").keySet());
      double answered =
          after.series("sluice_policy_answers_total").values().stream().mapToDouble(d -> d).sum();
      assertTrue(answered >= 5.0, "answers counted: " + answered);
    }
  }

  @Test
  void stateGaugesFollowProbesCommandsAndReloads() throws Exception {
    try (Backend backend = new Backend("127.0.0.1");
        LiveNode node = LiveNode.start(dir, config(backend.port(), POOL_X, SERVICE_WEB))) {
      // Verdict and vantage agreement from the real probe of the real backend.
      PrometheusSamples s = awaitValue(node, "sluice_health_vantages_agreeing", 1.0, "p-eu/a");
      assertEquals(
          1.0, value(s, "sluice_health_vantages_eligible", "pool", "p-eu", "endpoint", "p-eu/a"));
      assertEquals(
          1.0,
          value(s, "sluice_health_verdict", "pool", "p-eu", "endpoint", "p-eu/a", "verdict", "UP"));
      assertEquals(
          0.0,
          value(
              s, "sluice_health_verdict", "pool", "p-eu", "endpoint", "p-eu/a", "verdict", "DOWN"));
      double age =
          value(s, "sluice_probe_last_result_age_seconds", "pool", "p-eu", "endpoint", "p-eu/a");
      assertTrue(age >= 0 && Double.isFinite(age), "age " + age);
      assertEquals(
          0.0, value(s, "sluice_health_evidence_stale", "pool", "p-eu", "endpoint", "p-eu/a"));
      assertEquals(2.0, value(s, "sluice_pool_usable_endpoints", "pool", "p-us"));
      assertEquals(2.0, value(s, "sluice_pool_endpoints", "pool", "p-us"));
      assertEquals(1.0, value(s, "sluice_pool_region", "pool", "p-eu", "region", "eu"));
      assertEquals(0.1, value(s, "sluice_policy_cross_region_limit_ratio", "service", APP), 1e-9);
      assertEquals(0.0, value(s, "sluice_traffic_frozen_all"));
      assertEquals(0.0, value(s, "sluice_traffic_pending_age_seconds", "service", WEB));
      assertEquals(60.0, value(s, "sluice_dns_ttl_served_seconds", "service", APP));

      // A planned move: a ramp of kind move at its first of three steps.
      ok(
          node.post(
              "/api/v1/services/app.example.test/move",
              "{\"from\": [\"p-eu\"], \"to\": [\"p-us\"], \"reason\": \"CHG-1\"}"));
      s = scrape(node);
      assertEquals(
          1.0, value(s, "sluice_traffic_ramp_in_progress", "service", APP, "kind", "move"));
      assertEquals(
          0.0, value(s, "sluice_traffic_ramp_in_progress", "service", APP, "kind", "failover"));
      assertEquals(1.0, value(s, "sluice_traffic_ramp_step", "service", APP));
      assertEquals(3.0, value(s, "sluice_traffic_ramp_steps_planned", "service", APP));
      assertEquals(0.0, value(s, "sluice_traffic_ramp_paused", "service", APP));
      assertEquals(10.0, value(s, "sluice_dns_ttl_served_seconds", "service", APP), "shift TTL");
      assertEquals(
          1.0, value(s, "sluice_traffic_ramps_started_total", "service", APP, "kind", "move"));

      // Drains of an endpoint and of a pool.
      ok(node.post("/api/v1/pools/p-us/endpoints/b/drain", "{\"reason\": \"CHG-2\"}"));
      ok(node.post("/api/v1/pools/p-eu/drain", "{\"reason\": \"CHG-3\"}"));
      s = scrape(node);
      assertEquals(1.0, value(s, "sluice_pool_usable_endpoints", "pool", "p-us"));
      assertEquals(1.0, value(s, "sluice_pool_drained_endpoints", "pool", "p-us"));
      assertEquals(1.0, value(s, "sluice_pool_drained", "pool", "p-eu"));
      assertEquals(0.0, value(s, "sluice_pool_drained", "pool", "p-us"));

      // The only endpoint of p-x goes down: web (auto-with-confirm) proposes its failover.
      node.setVerdict(Verdict.DOWN, "p-x/a");
      s = scrape(node);
      assertEquals(
          1.0,
          value(s, "sluice_health_verdict", "pool", "p-x", "endpoint", "p-x/a", "verdict", "DOWN"));
      assertEquals(0.0, value(s, "sluice_pool_usable_endpoints", "pool", "p-x"));
      assertEquals(1.0, value(s, "sluice_traffic_pending", "service", WEB, "kind", "start"));
      assertEquals(0.0, value(s, "sluice_traffic_pending", "service", WEB, "kind", "step"));
      assertTrue(value(s, "sluice_traffic_pending_age_seconds", "service", WEB) >= 0);

      // Freezes, of one service and of all.
      ok(node.post("/api/v1/services/app.example.test/freeze", "{\"reason\": \"INC-1\"}"));
      ok(node.post("/api/v1/freeze", "{\"reason\": \"INC-1\"}"));
      s = scrape(node);
      assertEquals(1.0, value(s, "sluice_traffic_frozen", "service", APP));
      assertEquals(1.0, value(s, "sluice_traffic_frozen_all"));

      // A reload that removes p-x and web and adds p-ap: their series go and come with it.
      Files.writeString(node.configFile, config(backend.port(), POOL_AP, ""));
      ok(node.post("/api/v1/config/reload", "{\"reason\": \"CHG-4\"}"));
      s = scrape(node);
      for (String name :
          Set.of(
              "sluice_pool_usable_endpoints",
              "sluice_pool_endpoints",
              "sluice_pool_drained",
              "sluice_health_verdict")) {
        assertTrue(
            s.series(name).keySet().stream().noneMatch(k -> k.contains("p-x")),
            name + " still has p-x: " + s.series(name).keySet());
        assertTrue(
            s.series(name).keySet().stream().anyMatch(k -> k.contains("p-ap")),
            name + " has no p-ap: " + s.series(name).keySet());
      }
      for (String name :
          Set.of(
              "sluice_traffic_pending", "sluice_traffic_frozen", "sluice_dns_ttl_served_seconds")) {
        assertTrue(
            s.series(name).keySet().stream().noneMatch(k -> k.contains(WEB)),
            name + " still has " + WEB);
      }
      assertEquals(1.0, value(s, "sluice_config_reloads_total", "result", "ok"));

      // A rejected reload shows until a good one.
      Files.writeString(node.configFile, "zones: [ {");
      assertTrue(node.post("/api/v1/config/reload", "{\"reason\": \"CHG-5\"}").status() >= 400);
      s = scrape(node);
      assertEquals(0.0, value(s, "sluice_config_last_reload_successful"));
      assertEquals(1.0, value(s, "sluice_config_reloads_total", "result", "rejected"));
    }
  }

  static PrometheusSamples scrape(LiveNode node) throws Exception {
    LiveNode.Reply r = node.get("/metrics");
    assertEquals(200, r.status());
    return PrometheusSamples.parse(r.body());
  }

  /** Scrapes until the endpoint's series of {@code name} has {@code want} (the probes run). */
  static PrometheusSamples awaitValue(LiveNode node, String name, double want, String endpoint)
      throws Exception {
    String pool = endpoint.substring(0, endpoint.indexOf('/'));
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      PrometheusSamples s = scrape(node);
      Double v =
          s.series(name)
              .get(PrometheusSamples.key(name, labels("pool", pool, "endpoint", endpoint)));
      if ((v != null && v == want) || System.nanoTime() > deadline) {
        assertEquals(want, v, name + " of " + endpoint);
        return s;
      }
      Thread.sleep(200);
    }
  }

  static void ok(LiveNode.Reply r) {
    assertTrue(r.status() / 100 == 2, r.toString());
  }

  static void zero(PrometheusSamples s, String name, String... kv) {
    Double v = s.series(name).get(PrometheusSamples.key(name, labels(kv)));
    assertNotNull(v, name + labels(kv) + " is not exported at start");
    assertEquals(0.0, v, name + labels(kv));
  }

  static double value(PrometheusSamples s, String name, String... kv) {
    Double v = s.series(name).get(PrometheusSamples.key(name, labels(kv)));
    assertNotNull(v, name + labels(kv) + " is not exported: " + s.series(name).keySet());
    return v;
  }

  static Map<String, String> labels(String... kv) {
    Map<String, String> m = new TreeMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }
}
