package io.sluice.it;

import static io.sluice.it.StateMetricsOverTheWireTest.ok;
import static io.sluice.it.StateMetricsOverTheWireTest.scrape;
import static io.sluice.it.StateMetricsOverTheWireTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Type;

/**
 * A node with many services, scraped over HTTP: every per-service family has a series for every
 * service from start, real events (answers, a move, a rollback) change exactly the series of the
 * service they happened to, and a scrape asked for gzip decodes to the same samples.
 */
class ManyServicesScrapeTest {
  private static final int SERVICES = 300;
  private static final String MOVED = "s42.many.test.";
  private static final String ROLLED = "s7.many.test.";
  private static final String ASKED = "s199.many.test.";

  /** Per-service families and the series each has per service. */
  private static final Map<String, Integer> PER_SERVICE =
      Map.ofEntries(
          Map.entry("sluice_policy_events_total", 6),
          Map.entry("sluice_policy_answers_total", 2),
          Map.entry("sluice_policy_answers_nearest_total", 1),
          Map.entry("sluice_policy_answers_cross_region_total", 1),
          Map.entry("sluice_policy_nearest_ratio", 1),
          Map.entry("sluice_policy_cross_region_ratio", 1),
          Map.entry("sluice_traffic_ramps_started_total", 4),
          Map.entry("sluice_traffic_ramp_steps_total", 1),
          Map.entry("sluice_traffic_ramp_percent", 1),
          Map.entry("sluice_traffic_ramp_in_progress", 4),
          Map.entry("sluice_traffic_ramp_step", 1),
          Map.entry("sluice_traffic_ramp_steps_planned", 1),
          Map.entry("sluice_traffic_ramp_paused", 1),
          Map.entry("sluice_traffic_pending", 4),
          Map.entry("sluice_traffic_pending_age_seconds", 1),
          Map.entry("sluice_traffic_frozen", 1),
          Map.entry("sluice_traffic_drill_in_progress", 1),
          Map.entry("sluice_dns_ttl_served_seconds", 1));

  @TempDir static Path dir;
  static LiveNode node;

  @BeforeAll
  static void start() throws Exception {
    StringBuilder services = new StringBuilder();
    for (int i = 0; i < SERVICES; i++) {
      services.append(
          """
                - name: s%d
                  pools: [{ pool: p%d, weight: 1 }, { pool: p%d, weight: 1 }]
                  traffic: { mode: manual, steps: [10, 50, 100], window: 10m }
          """
              .formatted(i, i % 4, (i + 1) % 4));
    }
    node =
        LiveNode.start(
            dir,
            """
            dns: { listen: [127.0.0.1], port: 0, threads: 1 }
            admin: { listen: 127.0.0.1, port: 0 }
            stateDir: state
            regions:
              eu: { location: { lat: 51.5, lon: -0.1 } }
              us: { location: { lat: 39.0, lon: -77.5 } }
            topology:
              defaultRegion: us
            pools:
              p0: { region: eu, endpoints: [ { name: a, address: 192.0.2.10 } ] }
              p1: { region: us, endpoints: [ { name: a, address: 192.0.2.11 } ] }
              p2: { region: eu, endpoints: [ { name: a, address: 192.0.2.12 } ] }
              p3: { region: us, endpoints: [ { name: a, address: 192.0.2.13 } ] }
            zones:
              - origin: many.test.
                soa: { mname: ns1.many.test., rname: h.many.test. }
                ns: [ns1.many.test.]
                records:
                  - { name: ns1, type: A, data: 192.0.2.53 }
                services:
            %s
            """
                .formatted(services));
  }

  @AfterAll
  static void stop() throws Exception {
    node.close();
  }

  @Test
  void everyFamilyHasEveryServiceAndEventsMoveTheirOwnSeries() throws Exception {
    PrometheusSamples s = scrape(node);
    for (Map.Entry<String, Integer> f : PER_SERVICE.entrySet()) {
      assertEquals(SERVICES * f.getValue(), s.series(f.getKey()).size(), f.getKey());
    }
    // The summary of rollback durations: every service and "all", at zero.
    assertEquals(SERVICES + 1, s.series("sluice_traffic_rollback_duration_seconds_count").size());
    assertEquals(SERVICES + 1, s.series("sluice_traffic_rollback_duration_seconds_max").size());
    assertEquals(SERVICES + 1, s.series("sluice_traffic_rollbacks_total").size());

    for (int i = 0; i < 7; i++) {
      assertFalse(LiveNode.addresses(node.query(ASKED, Type.A, null, false)).isEmpty());
    }
    ok(
        node.post(
            "/api/v1/services/s42.many.test/move",
            "{\"from\": [\"p2\"], \"to\": [\"p3\"], \"reason\": \"CHG-1\"}"));
    ok(
        node.post(
            "/api/v1/services/s7.many.test/move",
            "{\"from\": [\"p3\"], \"to\": [\"p0\"], \"reason\": \"CHG-2\"}"));
    ok(node.post("/api/v1/services/s7.many.test/rollback", "{\"reason\": \"INC-1\"}"));

    s = scrape(node);
    // Answers: the asked service's pools count them all, every other service stays at zero.
    double answers =
        s.series("sluice_policy_answers_total").entrySet().stream()
            .filter(e -> e.getKey().contains("\"" + ASKED + "\""))
            .mapToDouble(Map.Entry::getValue)
            .sum();
    assertEquals(7.0, answers);
    assertEquals(7.0, sum(s, "sluice_policy_answers_total"), "answers counted for other services");
    assertEquals(
        7.0,
        value(s, "sluice_policy_answers_nearest_total", "service", ASKED)
            + value(s, "sluice_policy_answers_cross_region_total", "service", ASKED));
    double ratio = value(s, "sluice_policy_nearest_ratio", "service", ASKED);
    assertEquals(
        value(s, "sluice_policy_answers_nearest_total", "service", ASKED) / 7.0, ratio, 1e-9);
    assertTrue(Double.isNaN(value(s, "sluice_policy_nearest_ratio", "service", MOVED)));

    // The move: a ramp of kind move at its first step, counted once, for that service alone.
    assertEquals(
        1.0, value(s, "sluice_traffic_ramp_in_progress", "service", MOVED, "kind", "move"));
    assertEquals(1.0, sum(s, "sluice_traffic_ramp_in_progress"));
    assertEquals(1.0, value(s, "sluice_traffic_ramp_step", "service", MOVED));
    assertEquals(3.0, value(s, "sluice_traffic_ramp_steps_planned", "service", MOVED));
    assertEquals(
        1.0, value(s, "sluice_traffic_ramps_started_total", "service", MOVED, "kind", "move"));
    assertEquals(1.0, value(s, "sluice_traffic_ramp_steps_total", "service", MOVED));
    assertEquals(10.0, value(s, "sluice_traffic_ramp_percent", "service", MOVED));
    // Both moves started and took their first step; only the moved one still ramps.
    assertEquals(2.0, sum(s, "sluice_traffic_ramps_started_total"));
    assertEquals(2.0, sum(s, "sluice_traffic_ramp_steps_total"));

    // The rollback: counted for its service, with its duration, and for no other.
    assertEquals(1.0, value(s, "sluice_traffic_rollbacks_total", "service", ROLLED));
    assertEquals(1.0, sum(s, "sluice_traffic_rollbacks_total"));
    assertEquals(
        1.0, value(s, "sluice_traffic_rollback_duration_seconds_count", "service", ROLLED));
    assertEquals(1.0, sum(s, "sluice_traffic_rollback_duration_seconds_count"));
    double took = value(s, "sluice_traffic_rollback_duration_seconds_sum", "service", ROLLED);
    assertTrue(took > 0, "rollback duration " + took);
    assertEquals(took, value(s, "sluice_traffic_rollback_duration_seconds_max", "service", ROLLED));
    assertEquals(0.0, value(s, "sluice_traffic_ramp_step", "service", ROLLED));

    // Counters never lose their series: every family still has every service.
    for (Map.Entry<String, Integer> f : PER_SERVICE.entrySet()) {
      assertEquals(SERVICES * f.getValue(), s.series(f.getKey()).size(), f.getKey());
    }
  }

  @Test
  void aGzipScrapeDecodesToTheSameSeries() throws Exception {
    HttpResponse<byte[]> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(node.adminUrl() + "/metrics"))
                    .header("Authorization", "Bearer " + node.token)
                    .header("Accept-Encoding", "gzip")
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode());
    assertEquals(List.of("gzip"), r.headers().allValues("Content-Encoding"));
    String text;
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(r.body()))) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    PrometheusSamples zipped = PrometheusSamples.parse(text);
    PrometheusSamples plain = scrape(node);
    for (String family : PER_SERVICE.keySet()) {
      assertEquals(plain.series(family).keySet(), zipped.series(family).keySet(), family);
    }
    assertTrue(r.body().length * 5 < text.length(), "compressed " + r.body().length);

    // A client that refuses gzip gets the text as it is.
    HttpResponse<String> refused =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(node.adminUrl() + "/metrics"))
                    .header("Authorization", "Bearer " + node.token)
                    .header("Accept-Encoding", "gzip;q=0, identity")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, refused.statusCode());
    assertTrue(refused.headers().allValues("Content-Encoding").isEmpty());
    assertEquals(
        plain.series("sluice_traffic_frozen").keySet(),
        PrometheusSamples.parse(refused.body()).series("sluice_traffic_frozen").keySet());
  }

  private static double sum(PrometheusSamples s, String name) {
    return s.series(name).values().stream().mapToDouble(d -> d).sum();
  }
}
