package io.sluice.core.traffic;

import static io.sluice.core.traffic.TrafficControllerTest.ALICE;
import static io.sluice.core.traffic.TrafficControllerTest.RAMP;
import static io.sluice.core.traffic.TrafficControllerTest.completeFailover;
import static io.sluice.core.traffic.TrafficControllerTest.events;
import static io.sluice.core.traffic.TrafficControllerTest.status;
import static io.sluice.core.traffic.TrafficFixture.APP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every operator action and automatic shift does exactly what it says, on the manual clock. */
class ShiftPromisesTest {
  @TempDir Path dir;

  private static Duration s(long seconds) {
    return Duration.ofSeconds(seconds);
  }

  /**
   * primary is back: its verdict is up and new checks pass, but the recent-results window still
   * holds the outage's failures (error rate 0.109), as a real probe window does for a while.
   */
  private static void recovery(TrafficFixture f) {
    f.failing.put("primary", 0.0);
    f.health("primary", Verdict.UP, 0.109375, Double.NaN);
  }

  @Test
  void aConfirmedFailbackIsJudgedOnlyOnEvidenceSinceTheRecovery() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      completeFailover(f);
      recovery(f);
      f.tickAfter(s(60));
      assertEquals("failback", status(f).pending().get("kind"));
      f.tickAfter(s(40));
      f.controller().confirm(ALICE, APP, true, "primary is fine", null);
      assertEquals(90.0, f.shiftPercent("failover"), "failback started");
      f.tickAfter(s(1));
      assertEquals(90.0, f.shiftPercent("failover"), "not backed out by the outage's failures");
      assertTrue(events(f, "gate-failed").isEmpty(), events(f, "gate-failed").toString());
      for (int i = 0; i < 4; i++) {
        f.tickAfter(s(30));
      }
      assertTrue(f.plan().shifts().isEmpty(), "the failback completed");
      assertEquals("completed", f.controller().switches(APP).get(0).outcome());
    }
  }

  @Test
  void anAutomaticFailbackDoesNotFlipBackAfterARealOutage() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "autoFailback: true\n")) {
      completeFailover(f);
      recovery(f);
      f.tickAfter(s(60));
      assertEquals(90.0, f.shiftPercent("failover"), "automatic failback started");
      f.tickAfter(s(1));
      f.tickAfter(s(5));
      assertEquals(90.0, f.shiftPercent("failover"), "no flip back to 100 %");
      assertTrue(events(f, "gate-failed").isEmpty());
    }
  }

  @Test
  void noEvidenceNeverPassesAGate() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "m", null);
      assertEquals(10.0, f.shiftPercent("move"));
      // Time passes but the probes report nothing about standby.
      for (int i = 0; i < 10; i++) {
        f.ticker.advance(s(30));
        f.controller().tick();
      }
      assertEquals(10.0, f.shiftPercent("move"), "the step waits for evidence");
      assertEquals("running", status(f).ramp().get("state"));
      f.tickAfter(s(10));
      assertEquals(30.0, f.shiftPercent("move"), "10 passing results since the step: it passes");
    }
  }

  @Test
  void confirmReportsAFailingGateAndChangesNothing() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      completeFailover(f);
      f.health("primary", Verdict.UP);
      f.failing.put("primary", 0.3); // up, but failing 30 % of its checks since the recovery
      f.tickAfter(s(60));
      assertEquals("failback", status(f).pending().get("kind"));
      f.tickAfter(s(30));
      long revision = f.controller().state().revision();
      CommandRejectedException e =
          assertThrows(
              CommandRejectedException.class,
              () -> f.controller().confirm(ALICE, APP, true, "go", null));
      assertTrue(e.conflict());
      assertTrue(e.getMessage().contains("a gate fails: error rate"), e.getMessage());
      assertEquals(revision, f.controller().state().revision());
      assertEquals(100.0, f.shiftPercent("failover"));
      assertEquals("failback", status(f).pending().get("kind"), "still waiting");
    }
  }

  @Test
  void rollbackAfterAbortReturnsToThePlanBeforeTheMove() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller()
          .startMove(
              ALICE, APP, List.of("primary"), List.of("standby"), List.of(10, 100), "m", null);
      assertEquals(10.0, f.shiftPercent("move"));
      f.controller().abortMove(ALICE, APP, "hold", null);
      assertNull(status(f).ramp());
      assertEquals(10.0, f.shiftPercent("move"), "abort holds the current step");
      CommandResult r = f.controller().rollback(ALICE, APP, "undo", null);
      assertTrue(r.changed(), r.message());
      assertTrue(f.plan().shifts().isEmpty(), "rollback undid the held step");
      assertEquals("aborted", f.controller().switches(APP).get(0).outcome());
    }
  }

  @Test
  void switchRecordsKeepTheOperatorsSteps() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller()
          .startMove(
              ALICE, APP, List.of("primary"), List.of("standby"), List.of(20, 50, 100), "m", null);
      SwitchRecord rec = f.controller().switches(APP).get(0);
      assertEquals(List.of(20, 50, 100), rec.details().get("steps"));
      f.controller().rollback(ALICE, APP, "undo", null);
      f.tickAfter(s(61));
      f.controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), List.of(100), "m", null);
      assertEquals(List.of(100), f.controller().switches(APP).get(0).details().get("steps"));
      f.controller().rollback(ALICE, APP, "undo", null);
      f.tickAfter(s(61));
      f.controller().startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "", null);
      assertEquals(
          List.of(10, 30, 60, 100),
          f.controller().switches(APP).get(0).details().get("steps"),
          "no steps given: the configured ones");
    }
  }

  @Test
  void anImmediateWeightChangeIsServedWithTheShortTtlFromItsFirstAnswer() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.tickAfter(s(1));
      assertNull(f.plan().ttlOverride());
      long before = f.store.current().version();
      f.controller().setWeights(ALICE, APP, Map.of("standby", 50), false, "rebalance", null);
      assertEquals(before + 1, f.store.current().version(), "one publish");
      assertEquals(50, f.plan().weights().get("standby"));
      assertEquals(10L, f.plan().ttlOverride(), "the same snapshot carries the short TTL");
      // Answers from before the change may be cached for 60 s: the short TTL stays 60 s + margin.
      f.tickAfter(s(64));
      assertEquals(10L, f.plan().ttlOverride());
      f.tickAfter(s(2));
      assertNull(f.plan().ttlOverride(), "the long TTL returns");
    }
  }

  @Test
  void aDrainIsServedWithTheShortTtlFromItsFirstAnswer() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.tickAfter(s(1));
      long before = f.store.current().version();
      f.controller().drain(ALICE, "primary/a", true, "kernel update", null);
      assertEquals(before + 1, f.store.current().version(), "one publish");
      assertTrue(f.store.current().traffic().drained().contains("primary/a"));
      assertEquals(10L, f.plan().ttlOverride(), "the same snapshot carries the short TTL");
      f.tickAfter(s(66));
      assertNull(f.plan().ttlOverride(), "the long TTL returns");
      f.controller().drain(ALICE, "primary/a", false, "done", null);
      assertEquals(10L, f.plan().ttlOverride(), "clients come back quickly too");
    }
  }

  @Test
  void aFreezeShowsAndAuditsWhatItHoldsBackAndUnfreezeStartsNothingByItself() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().freeze(ALICE, APP, true, "change window", null);
      f.health("primary", Verdict.DOWN);
      for (int i = 0; i < 5; i++) {
        f.tickAfter(s(30));
      }
      assertTrue(f.plan().shifts().isEmpty(), "frozen: nothing moves");
      assertEquals(1, events(f, "failover-held").size(), "audited once");
      Map<String, Object> pending = status(f).pending();
      assertEquals("start", pending.get("kind"));
      assertEquals(true, pending.get("heldByFreeze"));
      assertTrue(pending.get("summary").toString().contains("held by freeze"), pending.toString());

      CommandResult r = f.controller().freeze(ALICE, APP, false, "window over", null);
      assertTrue(r.message().contains("held by the freeze"), r.message());
      f.tickAfter(s(1));
      f.tickAfter(s(30));
      assertTrue(f.plan().shifts().isEmpty(), "unfreeze alone starts no failover");
      Map<String, Object> released = status(f).pending();
      assertEquals("start", released.get("kind"));
      assertEquals(null, released.get("heldByFreeze"), "no longer held once unfrozen");
      assertTrue(
          released.get("summary").toString().endsWith("(was held by freeze: confirm or reject)"),
          released.toString());

      f.controller().confirm(ALICE, APP, true, "go ahead", null);
      assertEquals(10.0, f.shiftPercent("failover"), "confirmed: the held failover starts");
    }
  }

  @Test
  void aDrillIsLimitedToHalfTheClients() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      CommandRejectedException e =
          assertThrows(
              CommandRejectedException.class,
              () -> f.controller().startDrill(ALICE, APP, List.of("spare"), 50.5, 60, "", null));
      assertEquals("percent", e.field());
      f.controller().startDrill(ALICE, APP, List.of("spare"), 50, 60, "", null);
      assertEquals(50.0, f.shiftPercent("drill"));
    }
  }
}
