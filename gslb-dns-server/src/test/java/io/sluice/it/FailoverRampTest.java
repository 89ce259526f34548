package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.state.Shift;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Automatic failover end to end: real HTTP backends checked by the node's own probes, a real DNS
 * client asking as 200 client subnets, and the admin API's rollback.
 *
 * <p>The primary pool has two endpoints and fails over when fewer than 75% of them are usable.
 * Killing one of its backends degrades it: the failover ramp starts while the primary still serves,
 * clients in buckets below the current step get the standby and the others the primary's remaining
 * endpoint, so the standby's load grows step by step. Rolling back restores the primary for
 * everyone.
 */
class FailoverRampTest {
  private static final String SERVICE = "fo.example.test.";
  private static final String PRIMARY = "127.0.0.2";
  private static final String PRIMARY_B = "127.0.0.4";
  private static final String STANDBY = "127.0.0.3";
  private static final int CLIENTS = 200;
  private static final long WINDOW_MILLIS = 3000;
  private static final long SHIFT_TTL = 5;

  @TempDir Path dir;
  private Backend primary;
  private Backend primaryB;
  private Backend standby;
  private LiveNode node;
  private SimpleResolver dns;
  private final List<String> subnets = new ArrayList<>();
  private final Map<String, Integer> bucketOf = new LinkedHashMap<>();

  private static String config(int primaryPort, int primaryBPort, int standbyPort) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        pools:
          primary:
            health:
              fullLink: { type: http, port: %d, path: /ready, interval: 300ms, timeout: 1s }
              downAfter: 2
              upAfter: 1
              attempts: 2
              fastRecheck: 100ms
              cooldown: 0s
            endpoints:
              - { name: a, address: %s }
              - name: b
                address: %s
                health:
                  fullLink: { type: http, port: %d, path: /ready, interval: 300ms, timeout: 1s }
                  downAfter: 2
                  upAfter: 1
                  attempts: 2
                  fastRecheck: 100ms
                  cooldown: 0s
          standby:
            health:
              fullLink: { type: http, port: %d, path: /ready, interval: 300ms, timeout: 1s }
              downAfter: 2
              upAfter: 1
              attempts: 2
              fastRecheck: 100ms
              cooldown: 0s
            endpoints: [ { name: a, address: %s } ]
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
                  window: %dms
                  cooldown: 60s
                  shiftTtl: %d
                  ttlMargin: 1s
                  failoverBelow: 75
                  # A loaded test machine can fail a standby check now and then; the error-rate
                  # gate is not what this test is about, so it is loose.
                  gates: { requireUp: true, maxErrorRate: 0.5, minResults: 3 }
        """
        .formatted(
            primaryPort,
            PRIMARY,
            PRIMARY_B,
            primaryBPort,
            standbyPort,
            STANDBY,
            WINDOW_MILLIS,
            SHIFT_TTL);
  }

  @BeforeEach
  void start() throws Exception {
    primary = new Backend(PRIMARY);
    primaryB = new Backend(PRIMARY_B);
    standby = new Backend(STANDBY);
    node = LiveNode.start(dir, config(primary.port(), primaryB.port(), standby.port()));
    dns = node.resolver(false);
    for (int i = 0; i < CLIENTS; i++) {
      String subnet = "10." + (i / 256) + "." + (i % 256) + ".0/24";
      subnets.add(subnet);
      byte[] a = InetAddress.getByName("10." + (i / 256) + "." + (i % 256) + ".0").getAddress();
      bucketOf.put(subnet, ClientInfo.ofSubnet(a, 24).bucket());
    }
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    primary.close();
    primaryB.close();
    standby.close();
  }

  /** One answer: the addresses handed out, their TTL and the ECS scope prefix. */
  private record Answer(Set<String> addresses, long ttl, int scope) {}

  private Answer ask(String subnet) throws Exception {
    Message q = LiveNode.queryMessage(SERVICE, Type.A, subnet);
    Message m = dns.send(q);
    List<Record> rs = m.getSection(Section.ANSWER);
    assertFalse(rs.isEmpty(), () -> subnet + ": " + m);
    Set<String> addresses = new HashSet<>();
    for (Record r : rs) {
      addresses.add(r.rdataToString());
    }
    return new Answer(addresses, rs.get(0).getTTL(), LiveNode.scope(m));
  }

  private volatile boolean primaryADown;

  /** Asks as every client; returns the subnets answered with the standby. */
  private Set<String> onStandby(List<Answer> seen) throws Exception {
    Set<String> moved = new HashSet<>();
    for (String s : subnets) {
      Answer a = ask(s);
      seen.add(a);
      if (a.addresses().contains(STANDBY)) {
        assertEquals(Set.of(STANDBY), a.addresses(), s);
        moved.add(s);
      } else {
        assertTrue(Set.of(PRIMARY, PRIMARY_B).containsAll(a.addresses()), s + ": " + a);
        assertFalse(primaryADown && a.addresses().contains(PRIMARY), "a down endpoint: " + s);
      }
    }
    return moved;
  }

  private Set<String> expectedMoved(double percent) {
    Set<String> out = new HashSet<>();
    bucketOf.forEach(
        (s, b) -> {
          if (b < percent * 100) {
            out.add(s);
          }
        });
    return out;
  }

  private double failoverPercent() {
    for (Shift sh : node.store().current().traffic().plan(SERVICE).shifts()) {
      if (sh.id().startsWith("failover-")) {
        return sh.percent();
      }
    }
    return 0;
  }

  private Verdict verdict(String endpoint) {
    return node.store().current().health().verdict(endpoint);
  }

  private static void waitFor(String what, long timeoutMillis, BooleanSupplier c)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + timeoutMillis + " ms waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  @Test
  void killedPrimaryFailsOverAsARampAndRollbackRestoresIt() throws Exception {
    waitFor(
        "both pools up",
        10_000,
        () ->
            verdict("primary/a") == Verdict.UP
                && verdict("primary/b") == Verdict.UP
                && verdict("standby/a") == Verdict.UP);
    List<Answer> before = new ArrayList<>();
    assertEquals(Set.of(), onStandby(before), "everyone on the primary while it is up");
    assertTrue(before.stream().allMatch(a -> a.ttl() == 60), "the long TTL before any shift");
    assertTrue(
        before.stream().allMatch(a -> a.scope() == 0),
        "priority alone does not depend on the client: scope /0");
    Set<Integer> distinctBuckets = new HashSet<>(bucketOf.values());
    assertTrue(distinctBuckets.size() > CLIENTS * 9 / 10, "the subnets spread over the buckets");

    // Kill one of the primary's two backends: 50% usable, below the 75% failover floor.
    long killedAt = System.currentTimeMillis();
    primary.kill();
    waitFor("the primary's verdict down", 10_000, () -> verdict("primary/a") == Verdict.DOWN);
    primaryADown = true;
    long downSince = node.store().current().health().get("primary/a").sinceMillis();
    System.out.println("failover: kill-to-verdict-down " + (downSince - killedAt) + " ms");
    waitFor("the first failover step", 5_000, () -> failoverPercent() > 0);
    long firstStepAt = System.currentTimeMillis();
    double firstStep = failoverPercent();
    assertEquals(25.0, firstStep, "the ramp starts at its first step");
    long detectionToFirstStep = firstStepAt - downSince;
    System.out.println(
        "failover: detection-to-first-step "
            + detectionToFirstStep
            + " ms (verdict down -> 25%, polled every 5 ms)");

    // The degraded primary keeps the clients the ramp has not moved yet, on its live endpoint.
    List<Answer> during = new ArrayList<>();
    Set<String> movedSoFar = new HashSet<>();
    Map<Double, Long> stepSeenAt = new LinkedHashMap<>();
    Map<Double, Integer> stepShare = new LinkedHashMap<>();
    long rampDeadline = firstStepAt + 30_000;
    double percent = failoverPercent();
    while (percent < 100) {
      if (System.currentTimeMillis() > rampDeadline) {
        fail("the ramp did not reach 100% in time: " + node.get("/api/v1/switches").body());
      }
      double atStart = failoverPercent();
      List<Answer> round = new ArrayList<>();
      Set<String> moved = onStandby(round);
      during.addAll(round);
      double atEnd = failoverPercent();
      assertTrue(atEnd >= atStart, "the ramp only advances while its gates hold");
      // Every client's answer is what its bucket gives at a step between the two readings.
      assertTrue(moved.containsAll(expectedMoved(atStart)), "clients below the step are moved");
      assertTrue(expectedMoved(atEnd).containsAll(moved), "clients above the step are not moved");
      assertTrue(moved.containsAll(movedSoFar), "a client moved stays moved");
      movedSoFar = moved;
      if (atStart == atEnd && atStart > 0) {
        assertEquals(expectedMoved(atStart), moved, "the moved cohort at " + atStart + "%");
        // Answers now depend on the client's bucket: a wider scope would let a resolver hand
        // one client's answer to clients of other buckets.
        assertTrue(
            round.stream().allMatch(a -> a.scope() >= 24),
            "scope at " + atStart + "%: " + round.stream().map(Answer::scope).distinct().toList());
        stepSeenAt.putIfAbsent(atStart, System.currentTimeMillis() - firstStepAt);
        stepShare.putIfAbsent(atStart, moved.size());
      }
      percent = atEnd;
    }
    for (Map.Entry<Double, Long> e : stepSeenAt.entrySet()) {
      System.out.println(
          "failover: step "
              + e.getKey()
              + "% seen on the wire at +"
              + e.getValue()
              + " ms, "
              + stepShare.get(e.getKey())
              + "/"
              + CLIENTS
              + " clients on the standby");
    }
    assertTrue(stepSeenAt.containsKey(50.0), "the 50% step was observed: " + stepSeenAt);
    long reached100 = System.currentTimeMillis() - firstStepAt;
    System.out.println("failover: step 100.0% seen on the wire by +" + reached100 + " ms");
    assertEquals(Set.copyOf(subnets), onStandby(during), "at 100% every client is on the standby");
    assertTrue(
        during.stream().allMatch(a -> a.ttl() == SHIFT_TTL),
        "every answer during the shift carries the short TTL");

    // Roll back through the admin API while watching the answer of a moved client.
    JsonNode svc = node.get("/api/v1/services/fo.example.test").json();
    assertEquals(100.0, svc.path("shifts").path(0).path("percent").asDouble(), svc.toString());
    assertEquals(SHIFT_TTL, svc.path("ttlOverride").asLong(), svc.toString());
    String watched = subnets.get(0);
    assertEquals(Set.of(STANDBY), ask(watched).addresses());
    long sentAt = System.nanoTime();
    CompletableFuture<LiveNode.Reply> reply =
        node.postAsync(
            "/api/v1/services/fo.example.test/rollback", "{\"reason\": \"errors after switch\"}");
    Answer after = ask(watched);
    int polls = 1;
    while (after.addresses().contains(STANDBY) && polls < 20_000) {
      assertTrue(System.nanoTime() - sentAt < TimeUnit.SECONDS.toNanos(5), "rollback took effect");
      after = ask(watched);
      polls++;
    }
    long rollbackToAnswer = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
    System.out.println(
        "failover: rollback-to-answer " + rollbackToAnswer + " ms (POST rollback -> DNS answer)");
    LiveNode.Reply r = reply.get(5, TimeUnit.SECONDS);
    assertEquals(200, r.status(), r.body());
    List<Answer> restored = new ArrayList<>();
    assertEquals(Set.of(), onStandby(restored), "every client back on the primary");
    assertTrue(
        restored.stream().allMatch(a -> a.ttl() == SHIFT_TTL),
        "the short TTL stays after a rollback until the long one may return");
    assertFalse(failoverPercent() > 0, "no failover shift left in the plan");

    // The switch record tells the same story: the step curve, a window apart, then the rollback.
    LiveNode.Reply sw = node.get("/api/v1/switches?service=fo.example.test");
    assertEquals(200, sw.status(), sw.body());
    JsonNode record = null;
    for (JsonNode r2 : sw.json().path("switches")) {
      if (r2.path("trigger").asText().equals("failover")) {
        record = r2;
      }
    }
    assertNotNull(record, sw.body());
    assertEquals("rolled-back", record.path("outcome").asText(), record.toString());
    List<Double> percents = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    for (JsonNode step : record.path("steps")) {
      if (step.path("event").asText().equals("step")) {
        percents.add(step.path("percent").asDouble());
        times.add(step.path("atMillis").asLong());
      }
    }
    assertTrue(percents.subList(0, 3).equals(List.of(25.0, 50.0, 100.0)), record.toString());
    for (int i = 1; i < 3; i++) {
      long held = times.get(i) - times.get(i - 1);
      // Each step is held at least its window (how much longer depends on the machine's load
      // and on when enough results arrived, which this test does not measure).
      assertTrue(
          held >= WINDOW_MILLIS, "step " + percents.get(i) + " after " + held + " ms: " + record);
    }
    System.out.println(
        "failover: detection-to-first-step "
            + (times.get(0) - downSince)
            + " ms (verdict down -> 25% step, switch record)");
    double serverRollbackMillis = record.path("details").path("rollbackMillis").asDouble(-1);
    assertTrue(serverRollbackMillis >= 0, record.toString());
    System.out.println(
        "failover: rollback command to published snapshot "
            + serverRollbackMillis
            + " ms (switch record)");
  }
}
