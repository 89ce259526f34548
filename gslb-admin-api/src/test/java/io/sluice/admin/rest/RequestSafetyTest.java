package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.ADMIN;
import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.config.ConfigProblem;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Bad input never changes anything and never yields a stack trace: malformed and oversized bodies,
 * unknown routes and methods, internal failures, wrong tokens (logged without the token and rate
 * limited), and invalid configuration reloads.
 */
class RequestSafetyTest {
  private static final String S = "/api/v1/services/app.example.com";
  private AdminFixture f;

  @BeforeEach
  void start() throws Exception {
    f = new AdminFixture();
  }

  @AfterEach
  void stop() {
    f.close();
  }

  @Test
  void malformedJsonAndWrongShapesAre400() throws Exception {
    for (String body :
        List.of("{", "[1,2]", "{\"reason\":\"a\"} trailing", "null", "{\"reason\":5}")) {
      var r = f.send("POST", "/api/v1/freeze", OPERATOR, body);
      assertEquals(400, r.statusCode(), body + " -> " + r.body());
      assertEquals("bad_request", f.json(r).get("error").asText());
    }
    var unknown = f.send("POST", "/api/v1/freeze", OPERATOR, "{\"reasn\":\"typo\"}");
    assertEquals("reasn", f.json(unknown).get("field").asText());
    assertTrue(f.json(unknown).get("message").asText().contains("unknown field 'reasn'"));
    assertTrue(f.control.calls().isEmpty());
  }

  @Test
  void oversizedBodiesAre413() throws Exception {
    String big = "{\"reason\":\"" + "x".repeat(5000) + "\"}";
    var r = f.send("POST", "/api/v1/freeze", OPERATOR, big);
    assertEquals(413, r.statusCode());
    assertEquals("payload_too_large", f.json(r).get("error").asText());
    assertTrue(f.control.calls().isEmpty());
    assertEquals(200, f.get("/api/v1/version", VIEWER).statusCode(), "the server still serves");
  }

  @Test
  void unknownRoutesAre404AndWrongMethods405() throws Exception {
    assertEquals(404, f.get("/api/v1/nothing", VIEWER).statusCode());
    assertEquals(404, f.get("/api/v2/status", VIEWER).statusCode());
    var r = f.send("DELETE", "/api/v1/freeze", OPERATOR, null);
    assertEquals(405, r.statusCode());
    assertEquals("POST", r.headers().firstValue("Allow").orElse(""));
  }

  @Test
  void anInternalFailureIsAGeneric500WithAnErrorId() throws Exception {
    f.control.failNext(new IllegalStateException("disk on fire at /var/secret/path"));
    var r = f.send("POST", S + "/rollback", OPERATOR, "{}");
    assertEquals(500, r.statusCode());
    var j = f.json(r);
    assertEquals("internal", j.get("error").asText());
    assertTrue(j.get("errorId").asText().matches("[0-9a-f-]{36}"));
    assertFalse(r.body().contains("disk on fire"), "no details leak");
    assertFalse(r.body().contains("Exception"), "no stack trace");
  }

  @Test
  void failedAuthenticationIsLoggedWithoutTheTokenAndRateLimitedPerSource() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(AdminHandler.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    Level before = logger.getLevel();
    logger.setLevel(Level.WARN);
    try {
      for (int i = 0; i < 3; i++) {
        assertEquals(401, f.get("/api/v1/status", "guess-" + i).statusCode());
      }
      var limited = f.get("/api/v1/status", "guess-4");
      assertEquals(429, limited.statusCode(), "a wrong token waits out the window");
      assertEquals("60", limited.headers().firstValue("Retry-After").orElse(""));
      assertEquals(429, f.get("/api/v1/status", null).statusCode(), "so does no token");
      assertEquals(200, f.get("/healthz", null).statusCode(), "health needs no token");
      f.ticker.advance(Duration.ofSeconds(61));
      assertEquals(401, f.get("/api/v1/status", "guess-5").statusCode());
    } finally {
      logger.detachAppender(logs);
      logger.setLevel(before);
    }
    List<String> lines = logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertEquals(
        4,
        lines.stream().filter(l -> l.startsWith("authentication failed from 127.0.0.1")).count(),
        lines.toString());
    assertTrue(lines.stream().noneMatch(l -> l.contains("guess-")), lines.toString());
  }

  @Test
  void failedLoginsFromTheSameAddressNeverLockOutAValidToken() throws Exception {
    for (int i = 0; i < 10; i++) {
      f.get("/api/v1/status", "guess-" + i);
    }
    assertEquals(429, f.get("/api/v1/status", "guess-10").statusCode());
    var rollback = f.post(S + "/rollback", OPERATOR, "{}");
    assertEquals(200, rollback.statusCode(), "the operator is not locked out: " + rollback.body());
    assertEquals(200, f.get("/api/v1/status", VIEWER).statusCode());
  }

  @Test
  void requestTextCannotForgeLogLines() throws Exception {
    List<String> lines =
        logged(
            () -> {
              var r =
                  f.send(
                      "POST",
                      "/api/v1/services/x%0a2026-01-01%20INFO%20ada%20(admin)%20rollback%1b%5b2J"
                          + "/rollback",
                      "wrong",
                      "{}");
              assertEquals(401, r.statusCode());
            });
    assertEquals(1, lines.size(), lines.toString());
    String line = lines.get(0);
    assertTrue(line.contains("x\\x0a2026-01-01 INFO ada (admin) rollback\\x1b[2J"), line);
    assertTrue(line.chars().noneMatch(c -> c < 0x20), line);
  }

  @Test
  void aMalformedPercentEncodingIs400WithOneLogLine() throws Exception {
    List<ILoggingEvent> events = new ArrayList<>();
    List<String> lines =
        logged(
            () -> {
              for (String target : List.of("/%ZZ", "/api/v1/services/%ZZ/rollback", "/x?a=%ZZ")) {
                try (Socket socket = new Socket("127.0.0.1", f.server.port())) {
                  socket.setSoTimeout(10_000);
                  socket
                      .getOutputStream()
                      .write(
                          ("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                              .getBytes(StandardCharsets.US_ASCII));
                  String reply =
                      new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                  assertTrue(reply.startsWith("HTTP/1.1 400 "), target + " -> " + reply);
                  assertTrue(reply.contains("malformed percent-encoding"), reply);
                }
              }
            },
            events);
    assertEquals(3, lines.size(), lines.toString());
    assertTrue(
        lines.stream().allMatch(l -> l.startsWith("malformed request URI from ")),
        lines.toString());
    assertTrue(events.stream().allMatch(e -> e.getThrowableProxy() == null), "no stack trace");
    assertEquals(200, f.get("/api/v1/status", VIEWER).statusCode(), "the handlers still serve");
  }

  /** An action that may throw. */
  private interface Action {
    void run() throws Exception;
  }

  private static List<String> logged(Action action) throws Exception {
    return logged(action, new ArrayList<>());
  }

  /** The messages every logger logged at INFO or above while {@code action} ran. */
  private static List<String> logged(Action action, List<ILoggingEvent> events) throws Exception {
    Logger admin = (Logger) LoggerFactory.getLogger("io.sluice.admin");
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    admin.addAppender(logs);
    Level before = admin.getLevel();
    admin.setLevel(Level.INFO);
    try {
      action.run();
    } finally {
      admin.detachAppender(logs);
      admin.setLevel(before);
    }
    List<ILoggingEvent> kept =
        logs.list.stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
            .filter(e -> e.getLoggerName().startsWith("io.sluice.admin"))
            .toList();
    events.addAll(kept);
    return kept.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void anInvalidReloadIsRejectedWithEveryProblemAndKeepsTheRunningConfig() throws Exception {
    var running = f.store.current();
    f.reloader.failWith(
        List.of(
            new ConfigProblem(
                "sluice.yaml", "zones[0].services[0].pools[0].weight", "must be 0..65535, was -1"),
            new ConfigProblem("sluice.yaml", "admin.port", "must be 0..65535, was 70000")));
    var r = f.post("/api/v1/config/reload", ADMIN, "{}");
    assertEquals(400, r.statusCode());
    var j = f.json(r);
    assertEquals("invalid_config", j.get("error").asText());
    assertEquals(2, j.get("problems").size());
    assertEquals(
        "zones[0].services[0].pools[0].weight", j.get("problems").get(0).get("path").asText());
    assertEquals("must be 0..65535, was -1", j.get("problems").get(0).get("message").asText());
    assertEquals(running, f.store.current(), "the running configuration is kept");
    assertEquals(1, f.reloader.calls());
    f.reloader.failWith(null);
    var ok = f.post("/api/v1/config/reload", ADMIN, null);
    assertEquals(200, ok.statusCode(), ok.body());
    assertEquals(2, f.json(ok).get("snapshotVersion").asLong());
    assertEquals(2, f.store.current().configVersion());
    String metrics = f.get("/metrics", VIEWER).body();
    // The reloader counts reloads, not the route, so each is counted once: the counters (exported
    // from start) stay at 0 here.
    List<String> counted =
        metrics.lines().filter(l -> l.startsWith("sluice_config_reloads_total{")).toList();
    assertEquals(2, counted.size(), metrics);
    for (String line : counted) {
      assertEquals(0.0, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), line);
    }
  }

  @Test
  void aPortInUseFailsStartWithTheBindError() throws Exception {
    AdminServer second =
        new AdminServer(
            f.store.current().config().admin().withPort(f.server.port()),
            f.store,
            f.control,
            f.reloader,
            null,
            null,
            f.metrics);
    Exception e = assertThrows(Exception.class, second::start);
    assertTrue(e instanceof java.net.BindException, e.toString());
    second.close();
    assertEquals(200, f.get("/healthz", null).statusCode(), "the first server is unaffected");
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    f.control.holdNext(release);
    try (Socket socket = new Socket("127.0.0.1", f.server.port())) {
      socket.setSoTimeout(10_000);
      String freeze =
          "POST /api/v1/freeze HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
              + OPERATOR
              + "\r\nContent-Length: 2\r\n\r\n{}";
      String health = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write((freeze + health).getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      assertTrue(f.control.awaitHeld());
      // The freeze is held in the control plane, so nothing may be answered yet: a server that
      // handled the pipelined health check beside it would answer it first.
      socket.setSoTimeout(300);
      assertThrows(SocketTimeoutException.class, () -> socket.getInputStream().read());
      socket.setSoTimeout(10_000);
      release.countDown();
      String both = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int first = both.indexOf("\"snapshotVersion\"");
      int second = both.indexOf("\"status\":\"ok\"");
      assertTrue(first >= 0 && second > first, both);
    }
  }

  @Test
  void headersMayNotSmuggleAnActor() throws Exception {
    var r = f.send("POST", "/api/v1/freeze", OPERATOR, "{}", Map.of("X-Actor", "ada"));
    assertEquals(200, r.statusCode());
    assertEquals("otto", f.control.lastCall().actor().name());
  }
}
