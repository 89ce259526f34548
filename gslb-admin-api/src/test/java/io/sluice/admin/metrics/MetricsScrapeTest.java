package io.sluice.admin.metrics;

import static io.sluice.admin.metrics.PrometheusText.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.spi.DnsSocketStats;
import io.sluice.core.spi.HttpsCloseReason;
import io.sluice.core.spi.TcpCloseReason;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Records through {@link MicrometerGslbMetrics} and reads the result back over {@code /metrics}.
 */
class MetricsScrapeTest {

  @Test
  void countersMoveByTheRecordedAmountsInValidPrometheusText() throws Exception {
    try (AdminFixture f = new AdminFixture()) {
      var g = f.metrics.gslb();
      String svc = "app.example.com.";
      g.dnsQuery("example.com.", 1, 0, false, 1);
      var r0 = f.get("/metrics", AdminFixture.VIEWER);
      assertEquals(200, r0.statusCode());
      assertTrue(r0.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
      Map<String, Double> before = PrometheusText.parse(r0.body());

      for (int i = 0; i < 7; i++) {
        g.dnsQuery("example.com.", 1, 0, false, TimeUnit.MICROSECONDS.toNanos(40));
      }
      g.dnsQuery("example.com.", 28, 3, true, TimeUnit.MILLISECONDS.toNanos(3));
      g.serviceAnswer("app.example.com.", "eu-west-1", true);
      g.serviceAnswer("app.example.com.", "eu-west-1", true);
      g.serviceAnswer("app.example.com.", "eu-west-1", true);
      g.serviceAnswer("app.example.com.", "us-east-1", false);
      g.probeCheck("heartbeat", true, null, TimeUnit.MILLISECONDS.toNanos(4));
      g.probeCheck("heartbeat", false, "timeout", TimeUnit.MILLISECONDS.toNanos(2000));
      g.probeScheduleLag(TimeUnit.MILLISECONDS.toNanos(3));
      g.verdictChange("eu-west-1/lon-a", "up", "down");
      g.rampStep("app.example.com.", 5);
      g.rampStep("app.example.com.", 20);
      g.rollback("app.example.com.", TimeUnit.MILLISECONDS.toNanos(250));
      g.configReload(true);
      g.policyEvent(svc, "fail-open");
      g.policyEvent(svc, "fail-open");
      g.policyEvent(svc, "residency-last-resort");
      g.probePathImpaired("fra-node-1", true);
      g.probePathImpaired("ams-agent", true);
      g.probePathImpaired("ams-agent", false);
      g.dnsTcpClosed(TcpCloseReason.MESSAGE_TIMEOUT);
      g.dnsTcpClosed(TcpCloseReason.MESSAGE_TIMEOUT);
      g.dnsTcpOpen(7);
      g.httpsClosed(HttpsCloseReason.SOURCE_LIMIT);

      Map<String, Double> after =
          PrometheusText.parse(f.get("/metrics", AdminFixture.VIEWER).body());
      String[] udpA = {
        "zone", "example.com.", "qtype", "A", "rcode", "NOERROR", "transport", "udp"
      };
      assertEquals(1, value(before, "sluice_dns_requests_total", udpA));
      assertEquals(8, value(after, "sluice_dns_requests_total", udpA));
      assertEquals(
          1,
          value(
              after,
              "sluice_dns_requests_total",
              "zone",
              "example.com.",
              "qtype",
              "AAAA",
              "rcode",
              "NXDOMAIN",
              "transport",
              "tcp"));
      assertEquals(
          8, value(after, "sluice_dns_request_duration_seconds_count", "transport", "udp"));
      assertEquals(
          7,
          value(
                  after,
                  "sluice_dns_request_duration_seconds_bucket",
                  "transport",
                  "udp",
                  "le",
                  "5.0E-5")
              - value(
                  before,
                  "sluice_dns_request_duration_seconds_bucket",
                  "transport",
                  "udp",
                  "le",
                  "5.0E-5"),
          "40 µs queries fall in the 50 µs bucket");
      assertEquals(
          3, value(after, "sluice_policy_answers_total", "service", svc, "pool", "eu-west-1"));
      assertEquals(3, value(after, "sluice_policy_answers_nearest_total", "service", svc));
      assertEquals(1, value(after, "sluice_policy_answers_cross_region_total", "service", svc));
      assertEquals(0.75, value(after, "sluice_policy_nearest_ratio", "service", svc), 1e-9);
      assertEquals(0.25, value(after, "sluice_policy_cross_region_ratio", "service", svc), 1e-9);
      assertEquals(
          1,
          value(
              after,
              "sluice_probe_checks_total",
              "kind",
              "heartbeat",
              "result",
              "ok",
              "reason",
              "ok"));
      assertEquals(
          1,
          value(
              after,
              "sluice_probe_checks_total",
              "kind",
              "heartbeat",
              "result",
              "fail",
              "reason",
              "timeout"));
      assertEquals(1, value(after, "sluice_probe_path_impaired", "vantage", "fra-node-1"));
      assertEquals(0, value(after, "sluice_probe_path_impaired", "vantage", "ams-agent"));
      assertEquals(2, value(after, "sluice_dns_tcp_closed_total", "reason", "message-timeout"));
      assertEquals(0, value(after, "sluice_dns_tcp_closed_total", "reason", "table-full"));
      assertEquals(7, value(after, "sluice_dns_tcp_connections"));
      assertEquals(
          1, value(after, "sluice_https_connections_closed_total", "reason", "source-limit"));
      assertEquals(
          0, value(after, "sluice_https_connections_closed_total", "reason", "request-timeout"));
      assertTrue(
          after.containsKey(
              PrometheusText.key("sluice_probe_path_impaired", Map.of("vantage", "ams-agent"))),
          "a recovered vantage still shows 0");
      assertEquals(
          2, value(after, "sluice_policy_events_total", "service", svc, "event", "fail-open"));
      assertEquals(
          1,
          value(
              after,
              "sluice_policy_events_total",
              "service",
              svc,
              "event",
              "residency-last-resort"));
      assertEquals(2, value(after, "sluice_probe_duration_seconds_count", "kind", "heartbeat"));
      assertEquals(1, value(after, "sluice_probe_schedule_lag_seconds_count"));
      assertEquals(
          1,
          value(
              after,
              "sluice_health_verdict_changes_total",
              "endpoint",
              "eu-west-1/lon-a",
              "from",
              "up",
              "to",
              "down"));
      assertEquals(2, value(after, "sluice_traffic_ramp_steps_total", "service", svc));
      assertEquals(20, value(after, "sluice_traffic_ramp_percent", "service", svc));
      assertEquals(1, value(after, "sluice_traffic_rollbacks_total", "service", svc));
      assertEquals(
          0.25, value(after, "sluice_traffic_rollback_duration_seconds_sum", "service", svc), 1e-9);
      assertEquals(1, value(after, "sluice_config_reloads_total", "result", "ok"));
      assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith("jvm_memory_used_bytes{")));
      assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith("process_cpu_usage{")));
    }
  }

  @Test
  void udpQueuesAndOverloadDropsAreReadAtScrape() throws Exception {
    try (AdminFixture f = new AdminFixture()) {
      java.util.concurrent.atomic.AtomicLong kernelDrops =
          new java.util.concurrent.atomic.AtomicLong();
      f.metrics
          .gslb()
          .dnsSockets(
              new DnsSocketStats() {
                @Override
                public long receiveQueueBytes() {
                  return 4096;
                }

                @Override
                public long receiveBufferDrops() {
                  return kernelDrops.get();
                }

                @Override
                public long sendQueueBytes() {
                  return 0;
                }

                @Override
                public long sendQueueDrops() {
                  return 3;
                }
              });
      kernelDrops.set(1234);
      // The test keeps no reference to the statistics, as the server keeps none outside the
      // registry: a collection must not turn the counters to 0.
      System.gc();
      Map<String, Double> m = PrometheusText.parse(f.get("/metrics", AdminFixture.VIEWER).body());
      assertEquals(1234, value(m, "sluice_dns_dropped_total", "reason", "receive_buffer"));
      assertEquals(3, value(m, "sluice_dns_dropped_total", "reason", "send_queue"));
      assertEquals(4096, value(m, "sluice_dns_udp_queue_bytes", "direction", "receive"));
      assertTrue(
          m.containsKey(
              PrometheusText.key("sluice_dns_udp_queue_bytes", Map.of("direction", "send"))));
    }
  }

  @Test
  void metricsCanBePublic() throws Exception {
    try (AdminFixture f = new AdminFixture("  metricsPublic: true")) {
      assertEquals(200, f.get("/metrics", null).statusCode());
      assertEquals(401, f.get("/api/v1/status", null).statusCode());
    }
  }

  @Test
  void policyEventsOfThreadsThatEndedAndOfThoseStillCountingAllCount() throws Exception {
    try (AdminFixture f = new AdminFixture()) {
      var g = f.metrics.gslb();
      String svc = "app.example.com.";
      Thread[] loops = new Thread[3];
      for (int t = 0; t < loops.length; t++) {
        loops[t] =
            new Thread(
                () -> {
                  for (int i = 0; i < 1000; i++) {
                    g.policyEvent(svc, "fail-closed");
                  }
                });
        loops[t].start();
      }
      for (Thread t : loops) {
        t.join();
      }
      g.policyEvent(svc, "fail-closed"); // this thread's own cell, still alive
      Map<String, Double> after =
          PrometheusText.parse(f.get("/metrics", AdminFixture.VIEWER).body());
      assertEquals(
          3001.0,
          value(after, "sluice_policy_events_total", "service", svc, "event", "fail-closed"));
    }
  }

  @Test
  void aLabelTupleMapsToOneCachedMeter() {
    MeterCache<Object> cache = new MeterCache<>(4, labels -> String.join("|", labels));
    Object first = cache.get("z", "A", "NOERROR", "udp");
    assertSame(first, cache.get("z", "A", "NOERROR", "udp"));
    assertEquals("z|A|NOERROR|udp", first);
    assertEquals("unknown|A|NOERROR|tcp", cache.get(null, "A", "NOERROR", "tcp"));
  }
}
