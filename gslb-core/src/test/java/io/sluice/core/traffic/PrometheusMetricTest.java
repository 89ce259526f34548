package io.sluice.core.traffic;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.sluice.core.config.ExternalGateConfig;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.health.Verdict;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The external gate against a real local HTTP server speaking the Prometheus query API. */
class PrometheusMetricTest {
  HttpServer server;
  final AtomicReference<String> body = new AtomicReference<>();
  final AtomicReference<Integer> status = new AtomicReference<>(200);
  final AtomicReference<String> lastQuery = new AtomicReference<>();
  @TempDir Path dir;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/api/v1/query",
        ex -> {
          lastQuery.set(ex.getRequestURI().getQuery());
          byte[] b = body.get().getBytes(UTF_8);
          ex.sendResponseHeaders(status.get(), b.length);
          try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static String vector(String value) {
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
        + "\"value\":[1700000000.1,\""
        + value
        + "\"]}]}}";
  }

  @Test
  void readsVectorAndScalarResults() throws Exception {
    PrometheusMetric m = new PrometheusMetric();
    ExternalGateConfig g = new ExternalGateConfig(url(), "sum(rate(errors[1m]))", 1.0, null);
    body.set(vector("0.25"));
    assertEquals(0.25, m.read(g));
    assertEquals("query=sum(rate(errors[1m]))", lastQuery.get());
    body.set("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"7\"]}}");
    assertEquals(7.0, m.read(g));
  }

  @Test
  void errorsAreReported() {
    PrometheusMetric m = new PrometheusMetric();
    ExternalGateConfig g = new ExternalGateConfig(url(), "up", 1.0, Duration.ofSeconds(2));
    status.set(500);
    body.set("oops");
    assertTrue(assertThrows(IOException.class, () -> m.read(g)).getMessage().contains("HTTP 500"));
    status.set(200);
    body.set("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}");
    assertTrue(assertThrows(IOException.class, () -> m.read(g)).getMessage().contains("no sample"));
    body.set(vector("many"));
    assertTrue(
        assertThrows(IOException.class, () -> m.read(g)).getMessage().contains("not a number"));
  }

  @Test
  void anExternalMetricAboveItsThresholdFailsTheRampGate() throws Exception {
    body.set(vector("0.01"));
    String traffic =
        "steps: [50, 100]\nwindow: 10s\ngates: { external: { url: \""
            + url()
            + "\", query: \"error_ratio\", max: 0.05 } }\n";
    try (TrafficFixture f = new TrafficFixture(dir, traffic, new PrometheusMetric())) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(Duration.ofSeconds(1));
      assertEquals(50.0, f.shiftPercent("failover"));
      body.set(vector("0.2"));
      f.tickAfter(Duration.ofSeconds(2));
      assertEquals(0.0, f.shiftPercent("failover"));
      AuditEvent e =
          f.controller().audit(new AuditQuery(null, null, null, null, 0, 100)).stream()
              .filter(x -> x.action().equals("gate-failed"))
              .findFirst()
              .orElseThrow();
      @SuppressWarnings("unchecked")
      Map<String, Object> measured = (Map<String, Object>) e.details().get("measured");
      assertEquals(0.2, ((Number) measured.get("external")).doubleValue());
    }
  }
}
