package io.sluice.core.traffic;

import static io.sluice.core.traffic.TrafficControllerTest.ALICE;
import static io.sluice.core.traffic.TrafficControllerTest.RAMP;
import static io.sluice.core.traffic.TrafficControllerTest.events;
import static io.sluice.core.traffic.TrafficControllerTest.status;
import static io.sluice.core.traffic.TrafficFixture.APP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.MaintenanceKind;
import io.sluice.core.control.MaintenanceRequest;
import io.sluice.core.control.Problem;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance windows on the traffic controller: scheduled, started and ended by the controller on
 * the manual clock, freezing automation while they run, persisted across a restart, and their rules
 * (a start in the past, overlaps, cancel of a running window, a manual change meanwhile).
 */
class MaintenanceWindowTest {
  @TempDir Path dir;

  private static Duration s(long seconds) {
    return Duration.ofSeconds(seconds);
  }

  private static MaintenanceRequest drain(String target, Long start, long seconds) {
    return new MaintenanceRequest(MaintenanceKind.DRAIN, target, null, null, start, seconds);
  }

  private static String firstId(TrafficFixture f) {
    return (String) f.controller().maintenance().get(0).get("id");
  }

  @Test
  void drainWindowStartsFreezesAndEndsOnTheClock() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      long now = f.ticker.currentTimeMillis();
      f.controller().addMaintenance(ALICE, drain("primary/a", now + 60_000, 600), "disk", null);
      Map<String, Object> w = f.controller().maintenance().get(0);
      assertEquals("scheduled", w.get("state"));
      assertEquals(List.of(APP), w.get("services"));
      assertEquals("alice", w.get("createdBy"));

      f.tickAfter(s(59));
      assertTrue(f.store.current().traffic().drained().isEmpty(), "not before its start");
      f.tickAfter(s(1));
      assertEquals(Set.of("primary/a"), f.store.current().traffic().drained());
      assertEquals("active", f.controller().maintenance().get(0).get("state"));
      assertTrue(f.plan().frozen(), "the window freezes the service's automation");
      assertEquals(10L, f.plan().ttlOverride(), "answers change: the short TTL");

      // Automation is frozen: the failover a dead primary calls for is held, not started.
      f.verdict("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      assertNull(status(f).ramp());
      assertEquals(true, status(f).pending().get("heldByFreeze"));
      assertEquals(1, events(f, "failover-held").size());

      f.tickAfter(s(598));
      assertEquals(Set.of("primary/a"), f.store.current().traffic().drained(), "until its end");
      f.tickAfter(s(1));
      assertTrue(f.store.current().traffic().drained().isEmpty(), "undrained at its end");
      assertTrue(f.controller().maintenance().isEmpty());
      assertFalse(f.plan().frozen());
      // The held failover waits for a person, as after an unfreeze.
      assertEquals("start", status(f).pending().get("kind"));
      assertNull(status(f).pending().get("heldByFreeze"));
      assertEquals(1, events(f, "maintenance-start").size());
      assertEquals(1, events(f, "maintenance-end").size());
      assertTrue(events(f, "maintenance-end").get(0).details().containsKey("held"));
      SwitchRecord rec =
          f.controller().switches(APP).stream()
              .filter(r -> r.trigger().equals(Maintenance.TRIGGER))
              .findFirst()
              .orElseThrow();
      assertEquals("completed", rec.outcome());
      assertEquals(List.of("primary/a"), rec.from());
    }
  }

  @Test
  void survivesRestartsWhileScheduledAndWhileRunning() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      long now = f.ticker.currentTimeMillis();
      f.controller().addMaintenance(ALICE, drain("standby", now + 10_000, 100), "patch", null);
      f.reopen();
      assertEquals("scheduled", f.controller().maintenance().get(0).get("state"));
      f.tickAfter(s(10));
      assertEquals(Set.of("standby"), f.store.current().traffic().drained());
      f.reopen();
      assertEquals(Set.of("standby"), f.store.current().traffic().drained());
      assertEquals("active", f.controller().maintenance().get(0).get("state"));
      assertTrue(f.store.current().traffic().plan(APP).frozen());
      f.tickAfter(s(100));
      assertTrue(f.store.current().traffic().drained().isEmpty());
      assertTrue(f.controller().maintenance().isEmpty());
      f.reopen();
      assertTrue(f.controller().maintenance().isEmpty());
    }
  }

  @Test
  void windowWholelyMissedWhileNoControllerRanAppliesNothing() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      long now = f.ticker.currentTimeMillis();
      f.controller().addMaintenance(ALICE, drain("standby", now + 10_000, 10), "patch", null);
      f.tickAfter(s(30));
      assertTrue(f.store.current().traffic().drained().isEmpty());
      assertTrue(f.controller().maintenance().isEmpty());
      assertEquals("missed", events(f, "maintenance-end").get(0).details().get("note"));
    }
  }

  @Test
  void rulesListEveryProblemAndRefuseOverlapsAndThePast() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      long now = f.ticker.currentTimeMillis();
      CommandRejectedException e =
          assertThrows(
              CommandRejectedException.class,
              () ->
                  f.controller()
                      .addMaintenance(ALICE, drain("primary/zz", now - 1000, 0), "x", null));
      List<String> fields = e.problems().stream().map(Problem::field).toList();
      assertEquals(List.of("target", "start", "duration"), fields, e.getMessage());
      assertTrue(e.getMessage().contains("is in the past"), e.getMessage());

      f.controller().addMaintenance(ALICE, drain("primary", now + 60_000, 600), "a", null);
      CommandRejectedException overlap =
          assertThrows(
              CommandRejectedException.class,
              () ->
                  f.controller()
                      .addMaintenance(ALICE, drain("standby", now + 300_000, 600), "b", null));
      assertTrue(overlap.conflict());
      assertTrue(overlap.getMessage().contains("mw-1"), overlap.getMessage());
      // Right after it is fine.
      f.controller().addMaintenance(ALICE, drain("standby", now + 660_000, 600), "c", null);
      assertEquals(2, f.controller().maintenance().size());

      CommandRejectedException unknown =
          assertThrows(
              CommandRejectedException.class,
              () -> f.controller().cancelMaintenance(ALICE, "mw-9", "x", null));
      assertEquals("id", unknown.problems().get(0).field());
    }
  }

  @Test
  void cancelOfARunningWindowUndrainsAndUnfreezes() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().addMaintenance(ALICE, drain("primary", null, 3600), "rack move", null);
      f.tickAfter(s(1));
      assertEquals(Set.of("primary"), f.store.current().traffic().drained());
      assertTrue(f.plan().frozen());
      f.controller().cancelMaintenance(ALICE, firstId(f), "done early", null);
      assertTrue(f.store.current().traffic().drained().isEmpty());
      assertFalse(f.plan().frozen());
      assertEquals(1, events(f, "maintenance-cancel").size());
      assertEquals(
          "cancelled",
          f.controller().switches(APP).stream()
              .filter(r -> r.trigger().equals(Maintenance.TRIGGER))
              .findFirst()
              .orElseThrow()
              .outcome());
    }
  }

  @Test
  void manualChangesDuringTheWindowWin() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      // Drained by an operator before the window: the window's end leaves it drained.
      f.controller().drain(ALICE, "spare", true, "broken", null);
      f.controller().addMaintenance(ALICE, drain("spare", null, 60), "patch", null);
      f.tickAfter(s(1));
      f.tickAfter(s(60));
      assertEquals(Set.of("spare"), f.store.current().traffic().drained());

      // Undrained by an operator during the window: its end has nothing to undo.
      f.controller().addMaintenance(ALICE, drain("standby", null, 60), "patch", null);
      f.tickAfter(s(1));
      assertTrue(f.store.current().traffic().drained().contains("standby"));
      f.controller().drain(ALICE, "standby", false, "needed it back", null);
      assertTrue(f.plan().frozen(), "the freeze holds for the whole window");
      f.tickAfter(s(60));
      assertEquals(Set.of("spare"), f.store.current().traffic().drained());
      assertFalse(f.plan().frozen());
    }
  }

  @Test
  void moveWindowMovesEveryClientAndMovesThemBack() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller()
          .addMaintenance(
              ALICE,
              new MaintenanceRequest(
                  MaintenanceKind.MOVE, APP, List.of("primary"), List.of("standby"), null, 120L),
              "eu upgrade",
              null);
      f.tickAfter(s(1));
      assertEquals(100.0, f.shiftPercent("mw-"));
      assertTrue(f.plan().frozen());
      f.tickAfter(s(120));
      assertEquals(0.0, f.shiftPercent("mw-"));
      assertFalse(f.plan().frozen());
    }
  }

  @Test
  void onlyTheLeaderStartsAndEndsAWindow() throws Exception {
    AtomicBoolean leads = new AtomicBoolean(false);
    try (TrafficFixture f = new TrafficFixture(dir, RAMP, g -> 0.0, leads::get)) {
      f.allUp();
      f.controller().addMaintenance(ALICE, drain("standby", null, 60), "patch", null);
      f.tickAfter(s(1));
      assertTrue(f.store.current().traffic().drained().isEmpty(), "a follower never starts it");
      leads.set(true);
      f.tickAfter(s(1));
      assertEquals(Set.of("standby"), f.store.current().traffic().drained());
      leads.set(false);
      f.tickAfter(s(120));
      assertEquals(Set.of("standby"), f.store.current().traffic().drained(), "nor ends it");
      leads.set(true);
      f.tickAfter(s(1));
      assertTrue(f.store.current().traffic().drained().isEmpty(), "the next leader ends it");
      assertEquals(1, events(f, "maintenance-end").size());
    }
  }
}
