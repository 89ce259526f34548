package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.core.health.Verdict;
import io.sluice.probe.ProbeStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote probe agents reporting through the real admin API count as vantages: one agent alone
 * cannot outvote the node's own passing check, two of three can, and the DNS answers follow.
 */
class ProbeQuorumTest {
  private static final String SERVICE = "app.example.test.";
  private static final String PRIMARY = "127.0.0.4";
  private static final String BACKUP = "198.51.100.21";

  @TempDir Path dir;
  private Backend backend;
  private LiveNode node;
  private final String adminToken = newToken();
  private final String amsToken = newToken();
  private final String tyoToken = newToken();

  private static String newToken() {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
  }

  private static String sha256(String token) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  @BeforeEach
  void start() throws Exception {
    backend = new Backend(PRIMARY);
    String yaml =
        """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin:
          listen: 127.0.0.1
          port: 0
          tokens:
            - { name: ops, role: admin, sha256: %s }
            - { name: ams, role: probe, sha256: %s }
            - { name: tyo, role: probe, sha256: %s }
        stateDir: state
        probes: { vantage: fra }
        pools:
          primary:
            health:
              fullLink: { type: http, port: %d, path: /ready, interval: 300ms, timeout: 300ms }
              downAfter: 2
              upAfter: 1
              attempts: 1
              fastRecheck: 100ms
              cooldown: 0s
            endpoints: [ { name: a, address: %s } ]
          backup: { endpoints: [ { name: a, address: %s } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            services:
              - name: app
                pools: [primary, backup]
                chain: [healthy, priority]
                traffic: { mode: manual }
        """
            .formatted(
                sha256(adminToken),
                sha256(amsToken),
                sha256(tyoToken),
                backend.port(),
                PRIMARY,
                BACKUP);
    node = LiveNode.start(dir, yaml, adminToken);
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    backend.close();
  }

  private String failingReport(String vantage) {
    return """
        {"vantage": "%s", "timeMillis": %d,
         "results": [{"endpoint": "primary/a", "check": "fullLink", "ok": false,
                      "rttMillis": 0, "error": "connect refused"}]}
        """
        .formatted(vantage, System.currentTimeMillis());
  }

  private Verdict verdict() {
    return node.store().current().health().verdict("primary/a");
  }

  private List<String> answer() throws Exception {
    return LiveNode.addresses(node.query(SERVICE, null));
  }

  private Optional<ProbeStatus.VantageStatus> vantage(String name) {
    return node.runtime.probes().status().vantages().stream()
        .filter(v -> v.name().equals(name))
        .findFirst();
  }

  private static void waitFor(String what, long timeoutMillis, BooleanSupplier c)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + timeoutMillis + " ms waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  /** Posts {@code runs} failing full-link results as {@code vantage}, one report per run. */
  private long reportFailures(String vantage, String token, int runs) throws Exception {
    long last = 0;
    for (int i = 0; i < runs; i++) {
      last = System.currentTimeMillis();
      LiveNode.Reply r = node.post("/api/v1/probe-reports", failingReport(vantage), token);
      assertEquals(202, r.status(), r.body());
      assertEquals(1, r.json().path("accepted").asInt(), r.body());
    }
    return last;
  }

  @Test
  void oneAgentCannotOutvoteTheNodeButTwoOfThreeCan() throws Exception {
    waitFor("the local check passing", 10_000, () -> verdict() == Verdict.UP);
    assertEquals(List.of(PRIMARY), answer());

    // An agent may only speak as the vantage its token is named after.
    LiveNode.Reply spoofed = node.post("/api/v1/probe-reports", failingReport("tyo"), amsToken);
    assertEquals(403, spoofed.status(), spoofed.body());
    assertTrue(spoofed.body().contains("vantage"), spoofed.body());

    // One remote vantage says down, the node's own passing check says up: 1 of 2 is no quorum.
    long sent = reportFailures("ams", amsToken, 3);
    // The probe status is refreshed at least every 5 s; once it shows the last report, the
    // engine has taken in all three (it handles reports in order, on one thread).
    waitFor(
        "ams's reports taken in",
        7_000,
        () -> vantage("ams").map(v -> v.fresh() && v.lastSeenMillis() >= sent).orElse(false));
    assertEquals(
        Verdict.UP, verdict(), () -> node.store().current().health().get("primary/a").reason());
    assertEquals(List.of(PRIMARY), answer(), "one probe path alone moves no traffic");

    // A second agent agrees: 2 of 3 vantages is a quorum, the primary is down and leaves answers.
    reportFailures("tyo", tyoToken, 3);
    waitFor("the quorum's down verdict", 5_000, () -> verdict() == Verdict.DOWN);
    assertEquals(List.of(BACKUP), answer());
    String reason = node.store().current().health().get("primary/a").reason();
    assertTrue(reason.contains("2 down"), reason);
  }
}
