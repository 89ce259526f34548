package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.Actor;
import io.sluice.core.health.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrafficSystemTest {
  @TempDir Path dir;

  @Test
  void aHealthChangeTriggersAControllerStepWithoutWaitingForTheInterval() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, "steps: [10, 100]\n")) {
      f.allUp();
      // An hour-long interval: only the health listener can make the controller act in time.
      f.system.start(f.store, Duration.ofHours(1));
      f.health("primary", Verdict.DOWN);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (f.plan().shifts().isEmpty() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertEquals(10.0, f.shiftPercent("failover"));
      f.system.close();
      // Health writers keep working after the controller is closed.
      f.health("standby", Verdict.DOWN);
      f.open();
    }
  }

  @Test
  void aStartPublishesTheRestoredStateOnlyWhenItDiffersFromTheServedOne() throws Exception {
    try (TrafficFixture fresh = new TrafficFixture(dir, "")) {
      // Nothing saved: the served state is already the restored one, so no listener (the policy
      // planner derives every service again for each) is woken for it: the store still holds
      // its initial snapshot, version 1.
      assertEquals(1, fresh.store.current().version());
      fresh.controller().freeze(new Actor("ops", "operator"), null, true, "drill", null);
      assertTrue(fresh.store.current().traffic().frozen());
    }
    try (TrafficFixture restarted = new TrafficFixture(dir, "")) {
      // A new store, as after a restart: the journal's freeze is restored and published (with a
      // version above the ones the state directory reserved before).
      assertTrue(restarted.store.current().version() > 1);
      assertTrue(restarted.store.current().traffic().frozen());
    }
  }

  @Test
  void openCreatesTheStateLayoutAndSharesTheAuditSink() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, "")) {
      long seq =
          f.system
              .auditSink()
              .append(Actor.PROBE, "verdict", null, "primary/a down", 1, 2, Map.of());
      assertEquals(1, seq);
      f.controller().freeze(new Actor("ops", "operator"), null, true, "x", null);
      assertTrue(Files.exists(dir.resolve("traffic/journal.log")));
      assertTrue(Files.exists(dir.resolve("audit/audit.jsonl")));
      assertTrue(Files.exists(dir.resolve("switches.jsonl")));
      assertEquals(
          2,
          f.controller()
              .audit(new io.sluice.core.control.AuditQuery(null, null, null, null, 0, 10))
              .size());
      assertFalse(f.controller().status().isEmpty());
    }
  }
}
