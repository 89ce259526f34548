package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice ctl status}, {@code audit}, {@code probes} and {@code watch} against a whole node
 * over its sockets, through a real failover (a killed HTTP backend, found by the node's own probes)
 * and a rollback: human times instead of epoch milliseconds, the RAMP cell, audit rows that name
 * what changed and where traffic went, and {@code --json} keeping the raw values.
 */
class CtlOnALiveNodeTest {
  private static final String SERVICE = "fo.example.test.";

  /** A recent moment as the tables show it: "now", "4 s ago", "1 min 5 s ago". */
  private static final String AGO = "(now|\\d+ s ago|\\d+ min( \\d+ s)? ago)";

  private static final String TIME = "\\d\\d:\\d\\d:\\d\\d \\(" + AGO + "\\)";

  @TempDir Path dir;
  private Backend primaryA;
  private Backend primaryB;
  private Backend standby;
  private LiveNode node;
  private Map<String, String> env;

  /** The health checks of a pool or endpoint: HTTP to {@code port}, quick to decide. */
  private static String health(int port, String indent) {
    // A killed backend refuses connections at once; a slow answer on a loaded machine is no
    // failure: generous timeouts, so only the kill fails the primary over.
    return ("fullLink: { type: http, port: %d, path: /ready, interval: 300ms, timeout: 5s }\n"
            + "downAfter: 3\nupAfter: 1\nattempts: 3\nfastRecheck: 100ms\ncooldown: 0s")
        .formatted(port)
        .lines()
        .map(l -> indent + l)
        .reduce((x, y) -> x + "\n" + y)
        .orElseThrow();
  }

  private static String config(int a, int b, int standby) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        pools:
          primary:
            health:
        %s
            endpoints:
              - { name: a, address: 127.0.0.2 }
              - name: b
                address: 127.0.0.4
                health:
        %s
          standby:
            health:
        %s
            endpoints: [ { name: a, address: 127.0.0.3 } ]
          static:
            endpoints: [ { name: a, address: 192.0.2.99 } ]
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
              - name: fo
                ttl: 60
                pools: [primary, standby]
                chain: [healthy, priority]
                traffic:
                  mode: auto
                  steps: [25, 50, 100]
                  window: 10m
                  cooldown: 10m
                  shiftTtl: 5
                  failoverBelow: 75
                  # Gates that cannot fail: the ramp stays at its first step for the window, so
                  # the views show the same step however loaded the machine is.
                  gates: { requireUp: false, maxErrorRate: 1.0 }
              - name: st
                ttl: 60
                pools: [static]
        """
        .formatted(health(a, "      "), health(b, "          "), health(standby, "      "));
  }

  @BeforeEach
  void start() throws Exception {
    primaryA = new Backend("127.0.0.2");
    primaryB = new Backend("127.0.0.4");
    standby = new Backend("127.0.0.3");
    node = LiveNode.start(dir, config(primaryA.port(), primaryB.port(), standby.port()));
    env = Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", node.token);
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    primaryA.close();
    primaryB.close();
    standby.close();
  }

  private LiveNode.CtlRun ok(String... args) {
    LiveNode.CtlRun r = LiveNode.ctl(env, args);
    assertEquals(0, r.exit(), String.join(" ", args) + "\nout: " + r.out() + "\nerr: " + r.err());
    return r;
  }

  private static void assertFinds(String regex, String text) {
    assertTrue(Pattern.compile(regex).matcher(text).find(), "no /" + regex + "/ in\n" + text);
  }

  private JsonNode serviceStatus() throws Exception {
    for (JsonNode s : node.get("/api/v1/status").json().path("services")) {
      if (s.path("service").asText().equals(SERVICE)) {
        return s;
      }
    }
    throw new AssertionError("no " + SERVICE);
  }

  private static void waitFor(String what, BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private boolean hasRamp() {
    try {
      return serviceStatus().path("ramp").isObject();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void statusAuditProbesAndWatchThroughAFailoverAndARollback() throws Exception {
    waitFor(
        "every checked endpoint up",
        () ->
            node.store().current().health().verdict("primary/a") == Verdict.UP
                && node.store().current().health().verdict("primary/b") == Verdict.UP
                && node.store().current().health().verdict("standby/a") == Verdict.UP);

    LiveNode.CtlRun before = ok("status");
    assertFinds("st\\.example\\.test\\.\\s+\\S+\\s+no\\s+static 100%\\s+-\\s+-\\s+-", before.out());

    LiveNode.CtlRun probes = ok("probes");
    assertFinds("vantage local\\s+initial round done", probes.out());
    assertFinds("probe path: ok on every vantage", probes.out());
    assertFinds("local\\s+this node\\s+fresh\\s+ok\\s+" + TIME, probes.out());
    assertFinds("held endpoints: none", probes.out());
    assertFinds("unchecked pools: static \\(no health checks: served as up\\)", probes.out());
    assertFinds("primary/b\\s+up\\s+no\\s+1 of 1\\s+" + AGO, probes.out());
    JsonNode probesJson = LiveNode.JSON.readTree(ok("--json", "probes").out());
    assertEquals(3, probesJson.path("checked").size(), probesJson.toString());
    assertTrue(probesJson.path("checked").get(0).path("lastResultMillis").isIntegralNumber());

    for (int i = 0; i < 20; i++) {
      node.query(SERVICE, "10.0." + i + ".0/24");
    }

    // A real failover: the second primary endpoint's backend dies, the node's probes find it.
    primaryB.kill();
    waitFor(
        "the failover ramp with primary/b down",
        () -> hasRamp() && node.store().current().health().verdict("primary/b") == Verdict.DOWN);

    LiveNode.CtlRun during = ok("status");
    assertFinds(
        "failover-\\d+ → standby 25 % step 1/3, next in (\\d+ min( \\d+ s)?|\\d+ s)", during.out());
    assertFinds("primary\\s+-\\s+b\\s+down\\s+" + AGO, during.out());
    assertFinds("primary 75%, standby 25%", during.out());

    LiveNode.CtlRun audit = ok("audit", "--limit", "10");
    assertFinds(
        TIME + "\\s+probe\\s+system\\s+verdict-change up → down\\s+primary/b\\s", audit.out());
    assertFinds(
        "failover-start\\s+fo\\.example\\.test\\.\\s+\\d+->\\d+\\s+failover to standby started:"
            + " 25 % \\(step 1/3\\)",
        audit.out());
    JsonNode raw = LiveNode.JSON.readTree(ok("--json", "audit", "--limit", "1").out());
    long millis = raw.path("events").get(0).path("timeMillis").asLong();
    assertTrue(millis > 0, "--json keeps the epoch milliseconds: " + raw);
    assertFalse(audit.out().contains(String.valueOf(millis)), "no epoch millis in the table");

    LiveNode.CtlRun watch = ok("watch", "fo.example.test", "--count", "2", "--interval", "200ms");
    assertEquals(2, count("watch fo.example.test.", watch.out()), watch.out());
    assertFinds("ramp     failover-\\d+ → standby 25 % step 1/3, next in", watch.out());
    assertFinds("TTL served 5 s", watch.out());
    assertFinds("primary\\s+-\\s+75 %\\s+\\d+\\s+-", watch.out());
    // The second view has a rate: the answers since the first.
    assertFinds("standby\\s+-\\s+25 %\\s+\\d+\\s+\\d+\\.\\d", watch.out());
    assertEquals(1, count("watch fo.example.test.", ok("watch", SERVICE, "--once").out()));

    // Rollback: the ramp ends, everyone is back on the primary, and the audit says so.
    ok("rollback", "fo.example.test", "-r", "errors after the switch");
    LiveNode.CtlRun after = ok("status", SERVICE);
    assertFinds("primary 100%, standby 0%\\s+-\\s+-\\s+-", after.out());
    assertFinds(
        "rollback\\s+fo\\.example\\.test\\.\\s+\\d+->\\d+\\s+errors after the switch",
        ok("audit", "--limit", "1").out());

    ok("drain", "standby/a", "-y", "-r", "maintenance");
    assertFinds(
        "admin\\s+drain\\s+standby/a\\s+\\d+->\\d+\\s+maintenance",
        ok("audit", "--limit", "1").out());
  }

  private static int count(String what, String text) {
    Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
