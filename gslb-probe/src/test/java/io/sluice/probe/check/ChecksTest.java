package io.sluice.probe.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.CheckType;
import io.sluice.probe.testing.HttpBackend;
import io.sluice.probe.testing.TcpBackend;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ChecksTest {
  private static CheckFactory checks;

  @BeforeAll
  static void startFactory() {
    checks = new CheckFactory(1);
  }

  @AfterAll
  static void stopFactory() {
    checks.close();
  }

  private static CheckResult run(Check c) throws Exception {
    return c.run().get(10, TimeUnit.SECONDS);
  }

  private static CheckConfig http(
      int port, String host, String body, String regex, String ptr, String val, Duration max) {
    return new CheckConfig(
        CheckType.HTTP,
        null,
        port,
        "/ready",
        null,
        host,
        Map.of("X-Probe", "1"),
        List.of(200, 204),
        body,
        regex,
        ptr,
        val,
        null,
        null,
        Duration.ofSeconds(2),
        max);
  }

  @Test
  void tcpConnectPassesOnAnOpenPortAndIsRefusedOnAClosedOne() throws Exception {
    try (TcpBackend tcp = new TcpBackend()) {
      Check c = checks.create(CheckConfig.tcp(tcp.port()), "127.0.0.1", Duration.ofSeconds(2));
      CheckResult up = run(c);
      assertTrue(up.ok(), up.toString());
      tcp.stop();
      CheckResult down = run(c);
      assertFalse(down.ok());
      assertEquals("refused", down.reason());
      assertTrue(down.error().contains("127.0.0.1:" + tcp.port()), down.error());
    }
  }

  @Test
  void httpJudgesStatusBodyJsonAndLatency() throws Exception {
    try (HttpBackend b = new HttpBackend()) {
      int p = b.port();
      assertTrue(
          run(checks.create(
                  http(p, null, "ready", null, null, null, null),
                  "127.0.0.1",
                  Duration.ofSeconds(5)))
              .ok());

      b.answer(503, "overloaded");
      CheckResult status =
          run(
              checks.create(
                  http(p, null, null, null, null, null, null), "127.0.0.1", Duration.ofSeconds(5)));
      assertEquals("status", status.reason());
      assertTrue(status.error().contains("status 503"), status.error());

      // A readiness URL that answers 200 while its database is down.
      b.answer(200, "{\"status\":\"not ready\",\"db\":\"down\"}");
      CheckResult json =
          run(
              checks.create(
                  http(p, null, null, null, "/db", "ok", null),
                  "127.0.0.1",
                  Duration.ofSeconds(5)));
      assertEquals("body", json.reason());
      assertTrue(json.error().contains("/db is 'down'"), json.error());
      CheckResult regex =
          run(
              checks.create(
                  http(p, null, null, "\"status\":\"ready\"", null, null, null),
                  "127.0.0.1",
                  Duration.ofSeconds(5)));
      assertEquals("body", regex.reason());
      CheckResult sub =
          run(
              checks.create(
                  http(p, null, "\"db\":\"ok\"", null, null, null, null),
                  "127.0.0.1",
                  Duration.ofSeconds(5)));
      assertEquals("body", sub.reason());

      b.answer(204, "");
      b.delay(300);
      CheckResult slow =
          run(
              checks.create(
                  http(p, null, null, null, null, null, Duration.ofMillis(100)),
                  "127.0.0.1",
                  Duration.ofSeconds(5)));
      assertEquals("latency", slow.reason());
      assertTrue(slow.rttNanos() >= TimeUnit.MILLISECONDS.toNanos(300), slow.toString());
    }
  }

  @Test
  void httpTimesOutAndSendsTheConfiguredHostHeader() throws Exception {
    try (HttpBackend b = new HttpBackend()) {
      CheckConfig c =
          CheckConfig.request(CheckType.HTTP, null, b.port(), "/", "www.example.com", null, null);
      CheckResult first = run(checks.create(c, "127.0.0.1", Duration.ofSeconds(5)));
      assertTrue(first.ok(), first.toString());
      assertEquals("www.example.com:" + b.port(), b.lastHost());
      b.delay(5000);
      CheckResult r = run(checks.create(c, "127.0.0.1", Duration.ofMillis(500)));
      assertEquals("timeout", r.reason());
      assertTrue(r.error().contains("within 500 ms"), r.error());
      assertTrue(r.rttNanos() < TimeUnit.MILLISECONDS.toNanos(4500), r.toString());
    }
  }

  @Test
  void aHostNameAddressIsResolvedOffTheEventLoop() throws Exception {
    try (TcpBackend tcp = new TcpBackend()) {
      CheckConfig byName =
          CheckConfig.request(CheckType.TCP, "localhost", tcp.port(), null, null, null, null);
      // A CNAME endpoint has no address of its own: the check's address is used.
      CheckResult r = run(checks.create(byName, null, Duration.ofSeconds(2)));
      assertTrue(r.ok(), r.toString());
      CheckConfig unknown =
          CheckConfig.request(
              CheckType.TCP, "no-such-host.invalid", tcp.port(), null, null, null, null);
      assertEquals("resolve", run(checks.create(unknown, null, Duration.ofSeconds(2))).reason());
    }
  }

  @Test
  void canaryTargetsAreTcpOrHttp() throws Exception {
    try (HttpBackend b = new HttpBackend();
        TcpBackend t = new TcpBackend()) {
      assertTrue(run(checks.canary("127.0.0.1:" + t.port())).ok());
      assertTrue(run(checks.canary("http://127.0.0.1:" + b.port() + "/health")).ok());
      b.stop();
      assertEquals("refused", run(checks.canary("http://127.0.0.1:" + b.port() + "/")).reason());
    }
  }
}
