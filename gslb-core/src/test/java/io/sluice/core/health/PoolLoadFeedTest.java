package io.sluice.core.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.testing.ManualTicker;
import io.sluice.core.traffic.PrometheusMetric;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pool load feed on the manual clock: pushed and pulled (from a real HTTP server speaking the
 * Prometheus query API) loads reach the snapshot, turn stale after {@code staleAfter} and are then
 * ignored, pulls run on their interval, and a push is audited.
 */
class PoolLoadFeedTest {
  private static final String YAML =
      """
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
      pools:
        pushed:
          capacity: 100
          load: { staleAfter: 30s }
          endpoints: [ { name: a, address: 192.0.2.1 } ]
        pulled:
          capacity: 100
          load: { url: "http://127.0.0.1:%d", query: "up", interval: 10s, staleAfter: 25s }
          endpoints: [ { name: a, address: 192.0.2.2 } ]
      """;

  private final AtomicReference<String> served = new AtomicReference<>("42");
  private final List<String> queries = new ArrayList<>();
  private HttpServer server;
  private final ManualTicker ticker = new ManualTicker();
  private final List<String> audited = new ArrayList<>();
  private final java.util.Map<String, String> gauges =
      new java.util.concurrent.ConcurrentHashMap<>();
  private SnapshotStore store;
  private PoolLoadFeed feed;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/v1/query",
        ex -> {
          synchronized (queries) {
            queries.add(ex.getRequestURI().getQuery());
          }
          String v = served.get();
          int status = v == null ? 500 : 200;
          byte[] body =
              (v == null
                      ? "{\"status\":\"error\",\"error\":\"down\"}"
                      : "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                          + "[{\"metric\":{},\"value\":[1,\""
                          + v
                          + "\"]}]}}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(status, body.length);
          try (OutputStream o = ex.getResponseBody()) {
            o.write(body);
          }
        });
    server.start();
    SluiceConfig config =
        ConfigLoader.parse(
            YAML.formatted(server.getAddress().getPort()), "test.yaml", Path.of("."));
    store = new SnapshotStore(Snapshot.initial(config));
    AuditSink audit =
        (actor, action, service, reason, before, after, details) -> {
          audited.add(actor.name() + " " + action + " " + details);
          return audited.size();
        };
    GslbMetrics metrics =
        new GslbMetrics() {
          @Override
          public void poolLoad(String pool, double load, double ageSeconds) {
            gauges.put(pool, load + "@" + ageSeconds);
          }
        };
    feed = PoolLoadFeed.create(store, audit, new PrometheusMetric()::query, ticker, metrics);
  }

  @AfterEach
  void stop() {
    feed.close();
    server.stop(0);
  }

  private PoolLoad load(String pool) {
    return store.current().health().poolLoads().get(pool);
  }

  @Test
  void aPushedLoadIsPublishedAuditedAndIgnoredOnceStale() {
    PoolLoad l = feed.push(new Actor("oncall", "operator"), "pushed", 85, "lb export");
    assertEquals(85.0, l.value());
    assertEquals(PoolLoad.Source.PUSH, l.source());
    assertEquals(85.0, store.current().health().poolLoad("pushed"));
    assertEquals(List.of("oncall pool-load {pool=pushed, load=85.0, source=push}"), audited);

    ticker.advance(Duration.ofSeconds(30));
    feed.tick();
    assertFalse(load("pushed").stale(), "exactly staleAfter old is still fresh");
    assertEquals(85.0, store.current().health().poolLoad("pushed"));

    ticker.advance(Duration.ofSeconds(1));
    feed.tick();
    assertTrue(load("pushed").stale(), "older than staleAfter");
    assertEquals("85.0@31.0", gauges.get("pushed"), "load and age are exported");
    assertTrue(
        Double.isNaN(store.current().health().poolLoad("pushed")), "a stale load is ignored");

    feed.push(new Actor("oncall", "operator"), "pushed", 20, null);
    assertEquals(20.0, store.current().health().poolLoad("pushed"), "a new push is fresh again");
  }

  @Test
  void badPushesNameTheFieldAndChangeNothing() {
    Actor a = new Actor("oncall", "operator");
    long v = store.current().version();
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> feed.push(a, "nowhere", 1, null))
            .getMessage()
            .startsWith("pool:"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> feed.push(a, "pushed", -1, null))
            .getMessage()
            .startsWith("load:"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> feed.push(a, "pushed", Double.NaN, null))
            .getMessage()
            .startsWith("load:"));
    assertEquals(v, store.current().version());
    assertEquals(List.of(), audited);
  }

  @Test
  void pulledLoadsFollowTheQueryOnItsIntervalAndGoStaleWhenItFails() {
    feed.tick();
    assertEquals(42.0, store.current().health().poolLoad("pulled"));
    assertEquals(PoolLoad.Source.PROMETHEUS, load("pulled").source());
    assertEquals(1, queries.size());
    assertEquals("query=up", queries.get(0));

    served.set("90");
    ticker.advance(Duration.ofSeconds(5));
    feed.tick();
    assertEquals(42.0, store.current().health().poolLoad("pulled"), "not due before the interval");
    ticker.advance(Duration.ofSeconds(5));
    feed.tick();
    assertEquals(90.0, store.current().health().poolLoad("pulled"));

    // The metrics backend fails: the last load holds until it is older than staleAfter.
    served.set(null);
    ticker.advance(Duration.ofSeconds(20));
    feed.tick();
    assertEquals(90.0, store.current().health().poolLoad("pulled"));
    ticker.advance(Duration.ofSeconds(10));
    feed.tick();
    assertTrue(load("pulled").stale());
    assertTrue(Double.isNaN(store.current().health().poolLoad("pulled")));
    assertTrue(audited.isEmpty(), "pulls are telemetry, not operator actions");
  }

  @Test
  void probeUpdatesKeepTheLoads() {
    feed.push(new Actor("oncall", "operator"), "pushed", 85, null);
    store.update(
        s ->
            s.withHealth(
                s.health()
                    .withAll(
                        java.util.Map.of("pushed/a", EndpointHealth.of(Verdict.UP, 1, "ok")),
                        java.util.Set.of("gone/a"))));
    assertEquals(85.0, store.current().health().poolLoad("pushed"));
  }

  @Test
  void aPullWithoutStalenessAboveItsIntervalIsAConfigError() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    YAML.formatted(1).replace("staleAfter: 25s", "staleAfter: 5s"),
                    "test.yaml",
                    Path.of(".")));
    assertTrue(e.getMessage().contains("pools.pulled.load.staleAfter"), e.getMessage());
  }
}
