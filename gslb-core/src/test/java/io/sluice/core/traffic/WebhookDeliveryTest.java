package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.NotificationsConfig;
import io.sluice.core.config.NotificationsConfig.Format;
import io.sluice.core.config.NotificationsConfig.WebhookConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.health.Verdict;
import io.sluice.core.notify.SharedCursors;
import io.sluice.core.notify.Webhooks;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Leadership;
import io.sluice.core.spi.WebhookStats;
import io.sluice.core.store.DiskWrites;
import io.sluice.core.testing.WebhookReceiver;
import io.sluice.core.testing.WebhookReceiver.Request;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhooks over the real path: traffic changes made through the controller are audited, reach the
 * outbox in the state directory and are sent to a real HTTP receiver on loopback that fails, hangs
 * past the timeout and recovers. Retry times follow the fixture's manual clock.
 */
class WebhookDeliveryTest {
  private static final Actor ALICE = new Actor("alice", "operator");
  private static final byte[] SECRET = "s3cret-for-tests".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;
  private WebhookReceiver receiver;
  private final Map<String, WebhookStats> stats = new ConcurrentHashMap<>();
  private volatile BooleanSupplier outboxHealthy;

  @BeforeEach
  void receiver() throws IOException {
    receiver = new WebhookReceiver();
    Files.write(dir.resolve("hook.secret"), SECRET);
  }

  @AfterEach
  void stop() {
    receiver.close();
  }

  private NotificationsConfig notifications(Duration timeout, String... events) {
    WebhookConfig w =
        new WebhookConfig(
            "ops",
            receiver.url(),
            "hook.secret",
            null,
            events.length == 0 ? null : List.of(events),
            null,
            timeout,
            Format.JSON);
    return new NotificationsConfig(List.of(w), 100, Duration.ofSeconds(8));
  }

  private Webhooks start(TrafficFixture f, NotificationsConfig config, DiskWrites writes) {
    GslbMetrics metrics =
        new GslbMetrics() {
          @Override
          public void webhook(String name, WebhookStats s) {
            stats.put(name, s);
          }

          @Override
          public void webhookOutbox(BooleanSupplier healthy) {
            outboxHealthy = healthy;
          }
        };
    return Webhooks.start(
        new Webhooks.Setup(
            dir.resolve("state"),
            f.system.auditLog(),
            "node-a",
            null,
            f.ticker,
            Leadership.ALWAYS,
            SharedCursors.NONE,
            metrics,
            new Random(7),
            writes),
        config,
        dir);
  }

  private TrafficFixture fixture() throws Exception {
    return new TrafficFixture(dir.resolve("state"), TrafficControllerTest.RAMP);
  }

  /** The audit events a webhook of every type must get, oldest first. */
  private static List<AuditEvent> audited(TrafficFixture f) {
    List<AuditEvent> all =
        new ArrayList<>(f.system.auditLog().query(new AuditQuery(null, null, null, null, 0, 1000)));
    java.util.Collections.reverse(all);
    return all;
  }

  /** Moves the manual clock on (retries are due) until {@code done}, waiting for the receiver. */
  private static void until(TrafficFixture f, BooleanSupplier done, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      f.ticker.advance(Duration.ofSeconds(1));
      Thread.sleep(25);
    }
  }

  /**
   * The ids the receiver accepted, in order of their first acceptance, per lane (service, or "" for
   * node-wide events). A request in flight when its sender stopped may be accepted again later,
   * under the same id: receivers dedupe by it.
   */
  private static Map<String, List<String>> lanes(List<Request> accepted) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Request r : accepted) {
      if (!seen.add(r.id())) {
        continue;
      }
      // A single node's ids begin with its own random id, the same across restarts.
      assertTrue(r.id().matches("node-[0-9a-f]{12}/.+"), r.id());
      String lane = r.body().hasNonNull("service") ? r.body().get("service").asText() : "";
      out.computeIfAbsent(lane, k -> new ArrayList<>())
          .add(r.id().substring(r.id().indexOf('/') + 1));
    }
    return out;
  }

  private static Map<String, List<String>> expectedLanes(List<AuditEvent> events) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (AuditEvent e : events) {
      String id =
          e.details().get("revision") instanceof Number n
              ? "state-" + n.longValue()
              : "node-a-" + e.seq();
      out.computeIfAbsent(e.service() == null ? "" : e.service(), k -> new ArrayList<>()).add(id);
    }
    return out;
  }

  @Test
  void aReceiverThatFailsThenHangsThenRecoversGetsEveryEventInOrderSignedOncePerKey()
      throws Exception {
    try (TrafficFixture f = fixture();
        Webhooks hooks = start(f, notifications(Duration.ofMillis(300)), DiskWrites.DIRECT)) {
      f.allUp();
      // Two failures, then one request left hanging past the timeout, then it works.
      int[] n = {0};
      receiver.behave(
          body -> {
            int i = n[0]++;
            return i < 2 ? 500 : i == 2 ? WebhookReceiver.HANG : 200;
          });
      f.verdict("primary", Verdict.DOWN); // verdict-change (node-wide) + failover-start
      f.tickAfter(Duration.ofSeconds(31)); // ramp-step
      f.controller().freeze(ALICE, null, true, "incident 42: hold everything", null);
      f.controller().freeze(ALICE, null, false, "incident 42 over", null);
      List<AuditEvent> events = audited(f);
      assertTrue(events.size() >= 5, "events: " + events);
      until(f, () -> receiver.accepted().size() >= events.size(), "every event accepted");
      // Nothing more comes once everything was accepted.
      f.ticker.advance(Duration.ofMinutes(10));
      Thread.sleep(200);

      List<Request> all = receiver.requests();
      List<Request> accepted = receiver.accepted();
      assertEquals(expectedLanes(events), lanes(accepted), "each lane in audit order");
      assertEquals(
          accepted.size(),
          accepted.stream().map(Request::id).collect(Collectors.toSet()).size(),
          "each id accepted once: " + accepted);
      assertTrue(all.size() >= accepted.size() + 3, "the failures were retried: " + all);
      // Retries repeat an id already sent, never make a new one.
      LinkedHashSet<String> ids = new LinkedHashSet<>();
      all.forEach(r -> ids.add(r.id()));
      assertEquals(accepted.stream().map(Request::id).collect(Collectors.toSet()), ids);
      long now = f.ticker.currentTimeMillis() / 1000;
      for (Request r : all) {
        assertTrue(WebhookReceiver.verified(r, SECRET, now, 3600), "signed: " + r.signature());
        assertFalse(
            WebhookReceiver.verified(r, "wrong".getBytes(StandardCharsets.UTF_8), now, 3600));
        assertEquals(r.id(), r.body().get("id").asText());
      }
      Request failover =
          accepted.stream()
              .filter(r -> "failover-start".equals(r.type()))
              .findFirst()
              .orElseThrow();
      assertEquals("app.example.com.", failover.body().get("service").asText());
      assertEquals("controller", failover.body().get("actor").asText());
      assertEquals("node-a", failover.body().get("node").asText());
      assertEquals("failover", failover.body().get("switches").get(0).get("trigger").asText());
      assertNotNull(failover.body().get("reason"));
      Request freeze =
          accepted.stream().filter(r -> "freeze".equals(r.type())).findFirst().orElseThrow();
      assertEquals("incident 42: hold everything", freeze.body().get("reason").asText());
      WebhookStats s = stats.get("ops");
      assertEquals(accepted.size(), s.delivered());
      assertTrue(s.failures() >= 3, "failures counted: " + s.failures());
      assertEquals(0, s.pending());
      assertTrue(outboxHealthy.getAsBoolean());
    }
  }

  @Test
  void aServiceWhoseEventsFailDoesNotHoldBackNodeWideEvents() throws Exception {
    try (TrafficFixture f = fixture();
        Webhooks hooks = start(f, notifications(Duration.ofSeconds(2)), DiskWrites.DIRECT)) {
      f.allUp();
      receiver.behave(body -> body.hasNonNull("service") ? 503 : 200);
      f.verdict("primary", Verdict.DOWN);
      f.controller().freeze(ALICE, null, true, "hold", null);
      f.controller().freeze(ALICE, null, false, "go", null);
      until(f, () -> receiver.accepted().size() >= 3, "the node-wide events");
      assertEquals(
          List.of("verdict-change", "freeze", "unfreeze"),
          receiver.accepted().stream().map(Request::type).toList());
      assertTrue(stats.get("ops").pending() >= 1, "the service's events wait");
      assertTrue(stats.get("ops").oldestPendingSeconds() > 0);
      receiver.behave(body -> 200);
      until(f, () -> stats.get("ops").pending() == 0, "the service's events after recovery");
      assertEquals("failover-start", receiver.accepted().get(3).type());
    }
  }

  @Test
  void eventsWaitingAcrossARestartAreDeliveredAfterItUnderTheSameIds() throws Exception {
    NotificationsConfig config = notifications(Duration.ofSeconds(2));
    TrafficFixture f = fixture();
    Webhooks hooks = start(f, config, DiskWrites.DIRECT);
    List<String> sentBefore;
    List<AuditEvent> events;
    try {
      f.allUp();
      receiver.behave(body -> 500);
      f.verdict("primary", Verdict.DOWN);
      f.controller().freeze(ALICE, "app.example.com.", true, "hold the app", null);
      events = audited(f);
      // Each lane's first attempt and its retry fail.
      until(f, () -> receiver.requests().size() >= 4, "a retry in each lane");
      sentBefore = receiver.requests().stream().map(Request::id).distinct().toList();
    } finally {
      // Stopped mid-retry: nothing was accepted.
      hooks.close();
      f.close();
    }
    assertTrue(receiver.accepted().isEmpty());
    receiver.behave(body -> 200);
    f.open();
    try (Webhooks again = start(f, config, DiskWrites.DIRECT)) {
      until(f, () -> receiver.accepted().size() >= events.size(), "delivery after the restart");
      assertEquals(expectedLanes(events), lanes(receiver.accepted()));
      assertTrue(
          receiver.accepted().stream().map(Request::id).toList().containsAll(sentBefore),
          "the same ids as before the restart: " + sentBefore + " " + receiver.accepted());
    } finally {
      f.close();
    }
  }

  @Test
  void anEventWrittenToTheAuditLogButNotTheOutboxIsReadAgainAtTheNextStart() throws Exception {
    NotificationsConfig config = notifications(Duration.ofSeconds(2));
    TrafficFixture f = fixture();
    Path outbox = dir.resolve("state/webhooks/outbox.jsonl");
    receiver.behave(body -> 500);
    Path cursors = dir.resolve("state/webhooks/cursors.json");
    byte[] cursorsBefore;
    try (Webhooks hooks = start(f, config, DiskWrites.DIRECT)) {
      cursorsBefore = Files.readAllBytes(cursors);
      f.allUp();
      f.controller().freeze(ALICE, null, true, "one", null);
      f.controller().freeze(ALICE, null, false, "two", null);
    }
    f.close();
    // A crash between the two writes: the outbox lacks the last event, and the cursors are as
    // the last delivery left them; then a damaged line.
    List<String> lines = Files.readAllLines(outbox);
    assertEquals(2, lines.size());
    Files.write(outbox, List.of("{not json", lines.get(0)));
    Files.write(cursors, cursorsBefore);
    receiver.behave(body -> 200);
    f.open();
    try (Webhooks again = start(f, config, DiskWrites.DIRECT)) {
      until(f, () -> stats.get("ops").pending() == 0 && receiver.accepted().size() >= 2, "both");
      assertEquals(
          List.of("freeze", "unfreeze"),
          receiver.accepted().stream().map(Request::type).distinct().toList(),
          receiver.requests().toString());
    } finally {
      f.close();
    }
  }

  @Test
  void aFullDiskUnderTheOutboxKeepsTheServerAndTheDeliveriesGoing() throws Exception {
    DiskWrites full =
        (file, out, bytes, off, len) -> {
          if (file.toString().contains("webhooks")) {
            throw new IOException("No space left on device");
          }
          out.write(bytes, off, len);
        };
    try (TrafficFixture f = fixture();
        Webhooks hooks = start(f, notifications(Duration.ofSeconds(2), "freeze"), full)) {
      f.allUp();
      f.controller().freeze(ALICE, null, true, "disk full, still frozen", null);
      assertTrue(f.store.current().traffic().frozen(), "the change is in effect");
      assertFalse(outboxHealthy.getAsBoolean(), "the outbox reports its failure");
      assertNotNull(hooks.problem());
      until(f, () -> receiver.accepted().size() >= 1, "the event kept in memory");
      assertEquals("freeze", receiver.accepted().get(0).type());
    }
  }

  @Test
  void aWebhookAddedByAReloadStartsWithTheNextEventAndARemovedOneIsForgotten() throws Exception {
    try (WebhookReceiver second = new WebhookReceiver();
        TrafficFixture f = fixture();
        Webhooks hooks = start(f, notifications(Duration.ofSeconds(2)), DiskWrites.DIRECT)) {
      f.allUp();
      receiver.behave(body -> 500);
      f.controller().freeze(ALICE, null, true, "before the reload", null);
      until(f, () -> !receiver.requests().isEmpty(), "the first webhook tried");
      WebhookConfig added =
          new WebhookConfig(
              "chat", second.url(), null, null, null, null, Duration.ofSeconds(2), Format.SLACK);
      // The reload drops "ops" (its backlog with it) and adds "chat".
      hooks.configure(new NotificationsConfig(List.of(added), 100, Duration.ofSeconds(8)), dir);
      f.controller().freeze(ALICE, null, false, "after the reload", null);
      until(f, () -> second.accepted().size() >= 1, "the new webhook");
      f.ticker.advance(Duration.ofMinutes(1));
      Thread.sleep(200);
      assertEquals(1, second.requests().size(), "only the event after the reload");
      assertTrue(
          second.accepted().get(0).body().get("text").asText().contains("unfreeze (node-wide)"),
          second.accepted().get(0).body().toString());
      assertEquals(0, stats.get("chat").pending());
      int before = receiver.requests().size();
      f.ticker.advance(Duration.ofMinutes(1));
      Thread.sleep(200);
      assertEquals(before, receiver.requests().size(), "a removed webhook gets nothing more");
    }
  }

  @Test
  void aServerWithoutWebhooksWakesForOneAddedByAReload() throws Exception {
    try (TrafficFixture f = fixture();
        Webhooks hooks =
            start(
                f,
                new NotificationsConfig(List.of(), 100, Duration.ofSeconds(8)),
                DiskWrites.DIRECT)) {
      f.allUp();
      // With nothing to send to, the delivery thread waits (up to a minute) instead of polling.
      Thread.sleep(200);
      hooks.configure(notifications(Duration.ofSeconds(2)), dir);
      f.controller().freeze(ALICE, null, true, "after the first webhook", null);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (receiver.accepted().isEmpty()) {
        assertTrue(System.nanoTime() < deadline, "the reload woke the delivery thread");
        Thread.sleep(25);
      }
      assertEquals("freeze", receiver.accepted().get(0).type());
    }
  }
}
