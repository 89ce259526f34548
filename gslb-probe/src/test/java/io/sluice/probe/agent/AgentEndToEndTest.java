package io.sluice.probe.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.AuditSink;
import io.sluice.core.health.ProbeEvidence;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.ProbeService;
import io.sluice.probe.ProbeStatus;
import io.sluice.probe.testing.HttpBackend;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one real-time test: a node and two probe agents on loopback, the agents posting reports to a
 * small stand-in for the admin API's report route, which feeds the node's sink.
 */
class AgentEndToEndTest {
  private static final ObjectMapper JSON = ConfigLoader.jsonMapper();
  @TempDir Path dir;

  /** Accepts reports with the right bearer token and hands them to the sink. */
  private static HttpServer reportRoute(ProbeReport.Sink sink, String token, AtomicInteger accepted)
      throws IOException {
    HttpServer s =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    s.createContext(
        "/api/v1/probe-reports",
        ex -> {
          int status;
          String body;
          if (!("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
            status = 401;
            body = "unauthorized";
          } else {
            try {
              sink.accept(JSON.readValue(ex.getRequestBody(), ProbeReport.class));
              accepted.incrementAndGet();
              status = 202;
              body = "";
            } catch (IllegalArgumentException | IOException e) {
              status = 400;
              body = e.getMessage();
            }
          }
          byte[] b = body.getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
          try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
          }
        });
    s.start();
    return s;
  }

  private static void await(String what, Duration limit, BooleanSupplier cond)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  void threeVantagesOnLoopbackAgreeAndTheNodeFollows() throws Exception {
    try (HttpBackend backend = new HttpBackend()) {
      String yaml =
          "stateDir: "
              + dir.resolve("state")
              + "\nprobes: { vantage: node-a, staleAfter: 10s }\n"
              + "pools:\n  p1:\n    health:\n"
              + "      heartbeat: { type: tcp, port: "
              + backend.port()
              + ", interval: 1s, timeout: 500ms }\n"
              + "      fullLink: { type: http, port: "
              + backend.port()
              + ", path: /ready, expectBody: ready, interval: 2s, timeout: 1s }\n"
              + "      fastRecheck: 200ms\n      cooldown: 2s\n"
              + "    endpoints: [{ name: a, address: 127.0.0.1 }]\n"
              + "zones:\n  - origin: example.com.\n"
              + "    soa: { mname: ns1.example.com., rname: hostmaster.example.com. }\n"
              + "    ns: [ns1.example.com.]\n"
              + "    services: [{ name: app, pools: [p1] }]\n";
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(file, yaml);
      SluiceConfig config = ConfigLoader.load(file);
      SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
      AtomicInteger accepted = new AtomicInteger();
      try (ProbeService node =
          ProbeService.start(store, AuditSink.NONE, GslbMetrics.NOOP, Ticker.SYSTEM)) {
        HttpServer route = reportRoute(node.reportSink(), "s3cret", accepted);
        URI uri =
            URI.create(
                "http://127.0.0.1:" + route.getAddress().getPort() + "/api/v1/probe-reports");
        try (ProbeAgent b =
                ProbeAgent.start(config, "agent-b", uri, "s3cret", Duration.ofMillis(300));
            ProbeAgent c =
                ProbeAgent.start(config, "agent-c", uri, "s3cret", Duration.ofMillis(300));
            ProbeAgent intruder =
                ProbeAgent.start(config, "agent-x", uri, "wrong", Duration.ofMillis(300))) {
          assertTrue(node.awaitInitialRound());
          await(
              "three fresh vantages, all up",
              Duration.ofSeconds(8),
              () ->
                  store.current().health().verdict("p1/a") == Verdict.UP
                      && node.status().vantages().stream()
                              .filter(ProbeStatus.VantageStatus::fresh)
                              .count()
                          == 3);
          // A vantage votes only once its deciding (full-link) check has a result: until all
          // three have one, the node's own faster checks could decide alone.
          await(
              "three vantages voting on p1/a",
              Duration.ofSeconds(8),
              () -> {
                ProbeEvidence ev = node.evidence().get("p1/a");
                return ev != null && ev.vantagesEligible() == 3 && ev.vantagesAgreeing() == 3;
              });
          // The intruder posts on its own schedule: wait for its first answer, then judge it.
          await(
              "the intruder's first report answered",
              Duration.ofSeconds(8),
              () -> intruder.lastStatus() != 0);
          assertEquals(401, intruder.lastStatus());
          assertTrue(node.status().vantages().stream().noneMatch(v -> v.name().equals("agent-x")));

          backend.stop();
          long t0 = System.nanoTime();
          await(
              "down",
              Duration.ofSeconds(10),
              () -> store.current().health().verdict("p1/a") == Verdict.DOWN);
          long detectMillis = (System.nanoTime() - t0) / 1_000_000;
          String reason = store.current().health().get("p1/a").reason();
          assertTrue(reason.contains("of 3 vantages"), reason);

          backend.restart();
          await(
              "up again",
              Duration.ofSeconds(10),
              () -> store.current().health().verdict("p1/a") == Verdict.UP);
          assertTrue(detectMillis < 10_000, "detection took " + detectMillis + " ms");
          // Both honest agents are being heard (how many reports that took depends on the
          // machine's pace, so no count is asserted beyond one each).
          assertEquals(202, b.lastStatus());
          assertEquals(202, c.lastStatus());
          assertTrue(accepted.get() >= 2, "reports accepted: " + accepted.get());
        } finally {
          route.stop(0);
        }
      }
    }
  }

  @Test
  void badCommandLinesExitWithUsage() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream err = new PrintStream(out, true, StandardCharsets.UTF_8);
    CountDownLatch stop = new CountDownLatch(0);
    assertEquals(ProbeAgent.USAGE, ProbeAgent.run(new String[] {"--config"}, err, null, stop));
    assertEquals(
        ProbeAgent.USAGE,
        ProbeAgent.run(new String[] {"--config", "x.yaml", "--vantage", "b"}, err, null, stop));
    assertTrue(
        out.toString(StandardCharsets.UTF_8).contains("--report-to is required"), out.toString());
    assertEquals(
        ProbeAgent.BAD_CONFIG,
        ProbeAgent.run(
            new String[] {
              "--config",
              dir.resolve("missing.yaml").toString(),
              "--vantage",
              "b",
              "--report-to",
              "http://127.0.0.1:1/r"
            },
            err,
            "tok",
            stop));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("file not found"), out.toString());
  }

  @Test
  void aTokenFileOtherUsersCanReadOrAnEmptyOneIsRefused() throws Exception {
    Path token = dir.resolve("probe.token");
    Files.writeString(token, "secret\n");
    Path empty = dir.resolve("empty.token");
    Files.writeString(empty, "\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(empty, PosixFilePermissions.fromString("rw-------"));
    for (Path file : new Path[] {token, empty}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrintStream err = new PrintStream(out, true, StandardCharsets.UTF_8);
      int code =
          ProbeAgent.run(
              new String[] {
                "--config",
                "x.yaml",
                "--vantage",
                "b",
                "--report-to",
                "http://127.0.0.1:1/r",
                "--token-file",
                file.toString()
              },
              err,
              null,
              new CountDownLatch(0));
      assertEquals(ProbeAgent.USAGE, code);
      String text = out.toString(StandardCharsets.UTF_8);
      assertTrue(
          file == token
              ? text.contains("is accessible to other users (mode rw-r--r--)")
              : text.contains("token file " + empty + " is empty"),
          text);
    }
  }
}
