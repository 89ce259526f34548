package io.sluice.core.traffic;

import static io.sluice.core.traffic.TrafficFixture.APP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.Problem;
import io.sluice.core.control.ServiceStatus;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.state.Shift;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrafficControllerTest {
  static final Actor ALICE = new Actor("alice", "operator");
  static final String RAMP =
      """
      steps: [10, 30, 60, 100]
      window: 30s
      cooldown: 60s
      shiftTtl: 10
      ttlMargin: 5s
      """;

  @TempDir Path dir;

  private static Duration s(long seconds) {
    return Duration.ofSeconds(seconds);
  }

  static List<AuditEvent> events(TrafficFixture f, String action) {
    return f.controller().audit(new AuditQuery(null, null, null, null, 0, 1000)).stream()
        .filter(e -> e.action().equals(action))
        .toList();
  }

  static ServiceStatus status(TrafficFixture f) {
    return f.controller().status().stream().filter(x -> x.service().equals(APP)).findFirst().get();
  }

  @Test
  void failoverRampsThroughEveryStepAndSettles() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.tickAfter(s(1));
      assertTrue(f.plan().shifts().isEmpty());

      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      Shift first = f.plan().shifts().get(0);
      assertEquals(List.of("primary"), first.from());
      assertEquals(List.of("standby", "spare"), first.to());
      assertEquals(10.0, first.percent());

      List<Double> seen = new ArrayList<>();
      seen.add(f.shiftPercent("failover"));
      f.tickAfter(s(29));
      assertEquals(10.0, f.shiftPercent("failover"), "held for the whole window");
      for (int i = 0; i < 3; i++) {
        f.tickAfter(s(1));
        seen.add(f.shiftPercent("failover"));
        f.tickAfter(s(29));
      }
      assertEquals(List.of(10.0, 30.0, 60.0, 100.0), seen);
      assertNotNull(status(f).ramp(), "last step is still observed for a window");
      f.tickAfter(s(1));
      assertNull(status(f).ramp());
      assertEquals(100.0, f.shiftPercent("failover"), "the completed failover stays in effect");
      assertEquals(0.0, status(f).shares().get("primary"));
      assertEquals(100.0, f.metrics.lastStep.get(APP));

      SwitchRecord rec = f.controller().switches(APP).get(0);
      assertEquals("failover", rec.trigger());
      assertEquals("completed", rec.outcome());
      assertEquals(
          List.of(10.0, 30.0, 60.0, 100.0),
          rec.steps().stream()
              .filter(st -> st.get("event").equals("step"))
              .map(st -> (Double) st.get("percent"))
              .toList());
      assertTrue(rec.details().containsKey("verdicts"));
      assertEquals(List.of("eu", "us"), rec.details().get("affectedRegions"));
      assertEquals(1, events(f, "failover-start").size());
      assertEquals(3, events(f, "ramp-step").size());
      assertEquals(1, events(f, "ramp-complete").size());
    }
  }

  @Test
  void aDegradedPoolFailsOverWhenBelowTheConfiguredShare() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "failoverBelow: 75\n")) {
      f.allUp();
      f.tickAfter(s(1));
      // One of primary's two endpoints down: 50% usable, below the 75% floor.
      f.store.update(
          st ->
              st.withHealth(
                  st.health()
                      .with(
                          "primary/a",
                          io.sluice.core.health.EndpointHealth.of(Verdict.DOWN, 0, "test"))));
      f.tickAfter(s(1));
      assertEquals(10.0, f.shiftPercent("failover"), "a degraded pool starts a ramp");
      assertEquals(List.of("primary"), f.plan().shifts().get(0).from());
    }
    try (TrafficFixture f = new TrafficFixture(dir.resolve("default"), RAMP)) {
      f.allUp();
      f.tickAfter(s(1));
      f.store.update(
          st ->
              st.withHealth(
                  st.health()
                      .with(
                          "primary/a",
                          io.sluice.core.health.EndpointHealth.of(Verdict.DOWN, 0, "test"))));
      f.tickAfter(s(1));
      assertTrue(f.plan().shifts().isEmpty(), "by default only a pool with no usable endpoint");
    }
  }

  @Test
  void cohortsOnlyGrowAsTheRampAdvances() {
    Shift shift = new Shift("x", List.of("a"), List.of("b"), 0);
    double[] steps = {1, 5, 20, 50, 100};
    int previous = -1;
    for (double p : steps) {
      int moved = 0;
      for (int b = 0; b < ClientInfo.BUCKETS; b++) {
        boolean now = shift.at(p).moves(b);
        if (previous >= 0 && b < previous) {
          assertTrue(now, "bucket " + b + " moved at an earlier step must stay moved at " + p);
        }
        moved += now ? 1 : 0;
      }
      assertEquals(Math.round(p * 100), moved, "exactly p x 100 buckets at " + p + "%");
      previous = moved;
    }
  }

  @Test
  void gateFailureMidRampRollsBackToLastGoodStepWithMeasuredValues() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "gates: { maxErrorRate: 0.1 }\n")) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1)); // 10%
      f.tickAfter(s(30)); // 30%, step 10 held
      assertEquals(30.0, f.shiftPercent("failover"));

      f.health("standby", Verdict.UP, 0.4, 20);
      f.tickAfter(s(5));
      assertEquals(30.0, f.shiftPercent("failover"), "5 results are too few to judge");
      f.tickAfter(s(5));
      assertEquals(10.0, f.shiftPercent("failover"), "back to the last step whose gates held");
      assertEquals("paused", status(f).ramp().get("state"));
      assertEquals("resume", status(f).pending().get("kind"), "a paused ramp waits for a person");
      assertTrue(
          status(f).pending().get("summary").toString().contains("error rate 0.4 above 0.1"),
          status(f).pending().toString());
      f.tickAfter(s(120));
      assertEquals(10.0, f.shiftPercent("failover"), "a paused ramp does not advance");

      AuditEvent gate = events(f, "gate-failed").get(0);
      @SuppressWarnings("unchecked")
      Map<String, Object> measured = (Map<String, Object>) gate.details().get("measured");
      assertEquals(0.4, ((Number) measured.get("errorRate")).doubleValue());
      assertEquals(30.0, ((Number) gate.details().get("fromPercent")).doubleValue());
      assertEquals(10.0, ((Number) gate.details().get("toPercent")).doubleValue());
      SwitchRecord rec = f.controller().switches(APP).get(0);
      assertTrue(rec.steps().stream().anyMatch(st -> st.get("event").equals("gate-failed")));

      f.health("standby", Verdict.UP);
      f.controller().confirm(ALICE, APP, true, "errors cleared", null);
      assertEquals(30.0, f.shiftPercent("failover"), "confirming a paused ramp resumes it");
    }
  }

  @Test
  void freezeStopsAutomaticFailoverButNotManualCommands() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().freeze(ALICE, null, true, "change freeze", null);
      assertTrue(status(f).globallyFrozen());
      f.health("primary", Verdict.DOWN);
      for (int i = 0; i < 5; i++) {
        f.tickAfter(s(30));
      }
      assertTrue(f.plan().shifts().isEmpty(), "no automatic move while frozen");

      f.controller().setWeights(ALICE, APP, Map.of("standby", 5), false, "manual", null);
      assertEquals(5, f.plan().weights().get("standby"), "manual commands still work");

      f.controller().freeze(ALICE, null, false, "done", null);
      f.tickAfter(s(1));
      assertTrue(f.plan().shifts().isEmpty(), "what the freeze held waits for confirmation");
      f.controller().confirm(ALICE, APP, true, "go", null);
      assertEquals(10.0, f.shiftPercent("failover"));

      f.controller().freeze(ALICE, APP, true, "hold here", null);
      assertTrue(f.plan().frozen());
      f.tickAfter(s(30));
      f.tickAfter(s(30));
      assertEquals(10.0, f.shiftPercent("failover"), "a service freeze holds the ramp");
      f.controller().freeze(ALICE, APP, false, "go on", null);
      f.tickAfter(s(1));
      assertEquals(30.0, f.shiftPercent("failover"));
    }
  }

  @Test
  void autoWithConfirmWaitsForTheOperatorAtEveryStep() throws Exception {
    try (TrafficFixture f =
        new TrafficFixture(dir, RAMP + "mode: auto-with-confirm\nconfirmTimeout: 5m\n")) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      assertEquals("start", status(f).pending().get("kind"));
      f.tickAfter(s(120));
      assertTrue(f.plan().shifts().isEmpty(), "nothing moves before confirmation");

      f.controller().confirm(ALICE, APP, true, "go", null);
      assertEquals(10.0, f.shiftPercent("failover"));
      f.tickAfter(s(30));
      assertEquals(10.0, f.shiftPercent("failover"));
      assertEquals("step", status(f).pending().get("kind"));
      f.controller().confirm(ALICE, APP, true, "next", null);
      assertEquals(30.0, f.shiftPercent("failover"));

      // The next proposal times out: the default policy rejects and rolls back.
      f.tickAfter(s(30));
      assertEquals("step", status(f).pending().get("kind"));
      f.tickAfter(s(299));
      assertEquals(30.0, f.shiftPercent("failover"));
      f.tickAfter(s(1));
      assertTrue(f.plan().shifts().isEmpty());
      assertNull(status(f).pending());
      assertEquals(1, events(f, "confirm-timeout-reject").size());
    }
  }

  @Test
  void autoWithConfirmCanAskOnceForTheWholeMove() throws Exception {
    try (TrafficFixture f =
        new TrafficFixture(dir, RAMP + "mode: auto-with-confirm\nconfirm: move\n")) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      assertEquals("start", status(f).pending().get("kind"));
      f.controller().confirm(ALICE, APP, true, "go", null);
      f.tickAfter(s(30));
      assertNull(status(f).pending(), "no further confirmation per step");
      assertEquals(30.0, f.shiftPercent("failover"));
    }
  }

  @Test
  void aProposalIsWithdrawnWhenItsConditionClears() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "mode: auto-with-confirm\n")) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      assertEquals("start", status(f).pending().get("kind"));
      f.health("primary", Verdict.UP);
      f.tickAfter(s(1));
      assertNull(status(f).pending());
      assertEquals(1, events(f, "proposal-withdrawn").size());
      assertThrows(
          CommandRejectedException.class,
          () -> f.controller().confirm(ALICE, APP, true, "late", null));
      assertTrue(f.plan().shifts().isEmpty());
      assertEquals("withdrawn", f.controller().switches(APP).get(0).outcome());
    }
  }

  @Test
  void confirmTimeoutCanProceed() throws Exception {
    try (TrafficFixture f =
        new TrafficFixture(
            dir,
            RAMP + "mode: auto-with-confirm\nconfirmTimeout: 1m\nonConfirmTimeout: proceed\n")) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      f.tickAfter(s(59));
      assertTrue(f.plan().shifts().isEmpty());
      f.tickAfter(s(1));
      assertEquals(10.0, f.shiftPercent("failover"));
    }
  }

  static void completeFailover(TrafficFixture f) {
    f.allUp();
    f.health("primary", Verdict.DOWN);
    f.tickAfter(s(1));
    for (int i = 0; i < 4; i++) {
      f.tickAfter(s(30));
    }
    assertNull(status(f).ramp());
    assertEquals(100.0, f.shiftPercent("failover"));
  }

  @Test
  void failbackWaitsForConfirmationThenRampsBack() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      completeFailover(f);
      f.health("primary", Verdict.UP);
      f.tickAfter(s(60)); // past the cooldown
      assertEquals("failback", status(f).pending().get("kind"));
      f.tickAfter(s(120));
      assertEquals(100.0, f.shiftPercent("failover"), "no failback without confirmation");

      f.controller().confirm(ALICE, APP, true, "primary is fine", null);
      assertEquals(90.0, f.shiftPercent("failover"), "failback ramps the shift down");
      List<Double> seen = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        f.tickAfter(s(30));
        seen.add(f.shiftPercent("failover"));
      }
      assertEquals(List.of(70.0, 40.0, 0.0), seen);
      f.tickAfter(s(30));
      assertTrue(f.plan().shifts().isEmpty());
      assertEquals("completed", f.controller().switches(APP).get(0).outcome());
      assertEquals("failback", f.controller().switches(APP).get(0).trigger());
    }
  }

  @Test
  void automaticFailbackIsOptIn() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "autoFailback: true\n")) {
      completeFailover(f);
      f.health("primary", Verdict.UP);
      f.tickAfter(s(60));
      assertNull(status(f).pending());
      assertEquals(90.0, f.shiftPercent("failover"));
    }
  }

  @Test
  void cooldownBlocksANewAutomaticSwitch() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      f.controller().rollback(ALICE, APP, "not now", null);
      assertTrue(f.plan().shifts().isEmpty());
      f.tickAfter(s(30));
      f.tickAfter(s(29));
      assertTrue(f.plan().shifts().isEmpty(), "inside the 60 s cooldown");
      f.tickAfter(s(1));
      assertEquals(10.0, f.shiftPercent("failover"), "after the cooldown the failover restarts");
    }
  }

  @Test
  void rollbackIsImmediateAndNeverBlockedByARamp() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().setWeights(ALICE, APP, Map.of("spare", 0), false, "stable", null);
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      f.tickAfter(s(30));
      f.controller().setWeights(ALICE, APP, Map.of("spare", 7), false, "mid-ramp", null);
      assertEquals(30.0, f.shiftPercent("failover"));

      long before = f.store.current().version();
      CommandResult r = f.controller().rollback(ALICE, APP, "bad release", "rb-1");
      assertTrue(f.store.current().version() > before);
      assertEquals(r.snapshotVersion(), f.store.current().version());
      assertTrue(f.plan().shifts().isEmpty(), "the next snapshot has the stable plan");
      assertEquals(0, f.plan().weights().get("spare"), "stable weights come back too");
      assertEquals(10L, f.plan().ttlOverride(), "a recent rollback keeps the short TTL");
      SwitchRecord rec = f.controller().switches(APP).get(0);
      assertEquals("rolled-back", rec.outcome());
      assertTrue(((Number) rec.details().get("rollbackMillis")).doubleValue() < 1000);
      assertEquals(1, f.metrics.rollbacks);
    }
  }

  @Test
  void rollbackOfAllServicesAndNothingToRollBack() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      CommandResult none = f.controller().rollback(ALICE, null, "check", null);
      assertFalse(none.changed());
      f.controller().startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "m", null);
      f.controller().rollback(ALICE, null, "all", null);
      assertTrue(f.plan().shifts().isEmpty());
    }
  }

  @Test
  void ttlIsCompressedWhileShiftingAndRestoredAfterTheLongestTtlPlusMargin() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, "steps: [100]\nwindow: 20s\n")) {
      f.allUp();
      f.tickAfter(s(1));
      assertEquals(60L, status(f).ttlServed());
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1)); // shift starts at T
      assertEquals(10L, status(f).ttlServed());
      f.tickAfter(s(20)); // completes at T+20; long answers from before T expire at T+60
      assertNull(status(f).ramp());
      assertEquals(10L, status(f).ttlServed());
      f.tickAfter(s(44)); // T+64: not yet (T+60 + 5 s margin)
      assertEquals(10L, status(f).ttlServed());
      f.tickAfter(s(1)); // T+65
      assertEquals(60L, status(f).ttlServed());
      assertNull(f.plan().ttlOverride());
      assertEquals(1, events(f, "ttl-restored").size());
    }
  }

  @Test
  void shortTtlOutlivesALongRampByShiftTtlPlusMargin() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      completeFailover(f); // four windows of 30 s: well past the 60 s TTL
      f.tickAfter(s(14));
      assertEquals(10L, status(f).ttlServed());
      f.tickAfter(s(1)); // completion + 10 s short TTL + 5 s margin
      assertEquals(60L, status(f).ttlServed());
    }
  }

  @Test
  void drillRestoresItselfAndRecordsTheResult() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().startDrill(ALICE, APP, List.of("spare"), 5, 120, "quarterly drill", null);
      Shift d = f.plan().shifts().get(0);
      assertEquals(5.0, d.percent(), "the default drill share is 5%");
      assertEquals(List.of("primary", "standby"), d.from());
      assertEquals(10L, f.plan().ttlOverride());
      f.tickAfter(s(119));
      assertEquals(5.0, f.shiftPercent("drill"));
      f.tickAfter(s(1));
      assertTrue(f.plan().shifts().isEmpty());
      SwitchRecord rec = f.controller().switches(APP).get(0);
      assertEquals("drill", rec.trigger());
      assertEquals("drill-passed", rec.outcome());

      f.controller().startDrill(ALICE, APP, List.of("spare"), 2, 600, "again", null);
      f.health("spare", Verdict.DOWN);
      f.tickAfter(s(1));
      assertEquals(0.0, f.shiftPercent("drill"), "a failing gate ends the drill at once");
      f.health("spare", Verdict.UP);
      f.tickAfter(s(60));
      f.controller().rollback(ALICE, APP, "clear the spare failover", null);
      f.tickAfter(s(60));
      f.controller().startDrill(ALICE, APP, List.of("standby"), 10, 600, "third", null);
      assertEquals(10.0, f.shiftPercent("drill"));
      f.controller().stopDrill(ALICE, APP, "seen enough", null);
      assertEquals(0.0, f.shiftPercent("drill"));
      assertTrue(
          f.controller().switches(APP).stream().anyMatch(r -> r.outcome().equals("drill-stopped")));
      SwitchRecord failed =
          f.controller().switches(APP).stream()
              .filter(r -> r.outcome().equals("drill-failed"))
              .findFirst()
              .orElseThrow();
      assertEquals("drill", failed.trigger());
      assertTrue(failed.details().get("failure").toString().contains("spare"));
    }
  }

  @Test
  void weightsRampInterpolatesAndPlannedMoveCanBeReversed() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, "steps: [50, 100]\nwindow: 10s\n")) {
      f.allUp();
      f.controller().setWeights(ALICE, APP, Map.of("primary", 11), true, "grow", null);
      assertEquals(6, f.plan().weights().get("primary"));
      f.tickAfter(s(10));
      assertEquals(11, f.plan().weights().get("primary"));
      f.tickAfter(s(10));
      assertNull(status(f).ramp());
      assertEquals(11, f.plan().weights().get("primary"));

      f.controller()
          .startMove(
              ALICE, APP, List.of("primary"), List.of("standby"), List.of(100), "maint", null);
      f.tickAfter(s(10));
      assertEquals(100.0, f.shiftPercent("move"));
      f.controller()
          .startMove(
              ALICE, APP, List.of("standby"), List.of("primary"), List.of(50, 100), "back", null);
      assertEquals(50.0, f.shiftPercent("move"));
      assertEquals(1, f.plan().shifts().size(), "reversing ramps the shift down, no second shift");
      f.tickAfter(s(10));
      f.tickAfter(s(10));
      assertTrue(f.plan().shifts().isEmpty());
    }
  }

  @Test
  void aMoveCanBeScopedToOneRegionAndReversedOnlyWithinIt() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, "steps: [50, 100]\nwindow: 10s\n")) {
      f.allUp();
      f.controller()
          .startMove(
              ALICE, APP, List.of("primary"), List.of("standby"), null, "eu", "maint eu", null);
      Shift s = f.plan().shifts().get(0);
      assertEquals("eu", s.region());
      assertEquals(50.0, s.percent());
      assertEquals("eu", status(f).ramp().get("region"));
      f.reopen();
      assertEquals("eu", f.plan().shifts().get(0).region(), "the region is persisted");
      assertEquals("eu", status(f).ramp().get("region"));
      f.tickAfter(s(10));
      assertEquals(100.0, f.shiftPercent("move"));
      assertEquals("eu", f.plan().shifts().get(0).region(), "the region survives every step");
      f.tickAfter(s(10));
      assertNull(status(f).ramp());
      assertEquals("eu", f.plan().shifts().get(0).region(), "and the settled plan");

      SwitchRecord rec = f.controller().switches(APP).get(0);
      assertEquals("eu", rec.details().get("clientRegion"));
      assertEquals("eu", events(f, "move-start").get(0).details().get("region"));

      // The same move for every region is a different shift: it stacks, it does not reverse.
      f.controller()
          .startMove(ALICE, APP, List.of("standby"), List.of("primary"), null, "all", null);
      assertEquals(2, f.plan().shifts().size());
      f.controller().rollback(ALICE, APP, "undo", null);
      f.controller()
          .startMove(ALICE, APP, List.of("standby"), List.of("primary"), null, "eu", "back", null);
      assertEquals(1, f.plan().shifts().size(), "reversing the eu move ramps it down");
      assertEquals(50.0, f.shiftPercent("move"));
    }
  }

  @Test
  void aMoveToAnUnknownRegionIsRejectedByField() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      long revision = f.controller().state().revision();
      CommandRejectedException e =
          assertThrows(
              CommandRejectedException.class,
              () ->
                  f.controller()
                      .startMove(
                          ALICE,
                          APP,
                          List.of("primary"),
                          List.of("standby"),
                          null,
                          "mars",
                          "",
                          null));
      assertEquals("region", e.field());
      assertTrue(e.getMessage().contains("unknown region 'mars'"), e.getMessage());
      assertEquals(revision, f.controller().state().revision());
    }
  }

  @Test
  void drainAndAbort() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.controller().drain(ALICE, "primary/a", true, "disk", null);
      assertEquals(java.util.Set.of("primary/a"), f.store.current().traffic().drained());
      f.controller().startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "m", null);
      f.tickAfter(s(30));
      f.controller().abortMove(ALICE, APP, "enough", null);
      assertNull(status(f).ramp());
      assertEquals(30.0, f.shiftPercent("move"), "abort keeps the current step");
      f.controller().drain(ALICE, "primary/a", false, "fixed", null);
      assertTrue(f.store.current().traffic().drained().isEmpty());
    }
  }

  @Test
  void aRepeatedRequestIdReturnsTheFirstResultAndChangesNothing() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      CommandResult first =
          f.controller().setWeights(ALICE, APP, Map.of("standby", 3), false, "x", "req-1");
      long revision = f.controller().state().revision();
      long version = f.store.current().version();
      CommandResult again =
          f.controller().setWeights(ALICE, APP, Map.of("standby", 9), false, "x", "req-1");
      assertSame(first, again);
      assertEquals(3, f.plan().weights().get("standby"));
      assertEquals(revision, f.controller().state().revision());
      assertEquals(version, f.store.current().version());
      AuditEvent e = events(f, "set-weights").get(0);
      assertEquals(1, events(f, "set-weights").size());
      assertEquals("alice", e.actor());
      assertEquals("operator", e.role());
      assertEquals(APP, e.service());
      assertEquals(first.snapshotVersion(), e.versionAfter());
      assertTrue(e.versionBefore() < e.versionAfter());

      f.reopen();
      assertEquals(
          first, f.controller().setWeights(ALICE, APP, Map.of("standby", 9), false, "x", "req-1"));
      assertEquals(3, f.plan().weights().get("standby"), "remembered across restarts");
    }
  }

  @Test
  void stateSurvivesARestart() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      f.tickAfter(s(1));
      f.tickAfter(s(30));
      f.controller().freeze(ALICE, APP, true, "hold", null);
      f.controller().drain(ALICE, "spare", true, "x", null);
      Object before = f.plan();
      f.reopen();
      assertEquals(before, f.plan());
      assertEquals(java.util.Set.of("spare"), f.store.current().traffic().drained());
      assertEquals(30.0, ((Number) status(f).ramp().get("percent")).doubleValue());
    }
  }

  @Test
  void rejectedCommandsNameTheFieldAndChangeNothing() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      TrafficController c = f.controller();
      record Case(String field, org.junit.jupiter.api.function.Executable call) {}
      List<Case> cases =
          List.of(
              new Case(
                  "service",
                  () ->
                      c.setWeights(
                          ALICE, "nope.example.com.", Map.of("primary", 1), false, "", null)),
              new Case(
                  "weights.nope",
                  () -> c.setWeights(ALICE, APP, Map.of("nope", 1), false, "", null)),
              new Case(
                  "weights.primary",
                  () -> c.setWeights(ALICE, APP, Map.of("primary", -1), false, "", null)),
              new Case(
                  "weights",
                  () ->
                      c.setWeights(
                          ALICE,
                          APP,
                          Map.of("primary", 0, "standby", 0, "spare", 0),
                          false,
                          "",
                          null)),
              new Case(
                  "from[1]",
                  () ->
                      c.startMove(
                          ALICE,
                          APP,
                          List.of("primary", "mars"),
                          List.of("standby"),
                          null,
                          "",
                          null)),
              new Case(
                  "to[0]",
                  () ->
                      c.startMove(
                          ALICE, APP, List.of("primary"), List.of("primary"), null, "", null)),
              new Case(
                  "steps[1]",
                  () ->
                      c.startMove(
                          ALICE,
                          APP,
                          List.of("primary"),
                          List.of("standby"),
                          List.of(50, 20, 100),
                          "",
                          null)),
              new Case(
                  "steps",
                  () ->
                      c.startMove(
                          ALICE,
                          APP,
                          List.of("primary"),
                          List.of("standby"),
                          List.of(50),
                          "",
                          null)),
              new Case(
                  "percent", () -> c.startDrill(ALICE, APP, List.of("spare"), 80, 60, "", null)),
              new Case("seconds", () -> c.startDrill(ALICE, APP, List.of("spare"), 5, 0, "", null)),
              new Case("target", () -> c.drain(ALICE, "primary/zz", true, "", null)),
              new Case("actor", () -> c.freeze(null, null, true, "", null)),
              new Case(null, () -> c.abortMove(ALICE, APP, "", null)),
              new Case(null, () -> c.confirm(ALICE, APP, true, "", null)));
      long revision = c.state().revision();
      for (Case k : cases) {
        CommandRejectedException e = assertThrows(CommandRejectedException.class, k.call());
        assertEquals(k.field(), e.field(), e.getMessage());
        if (k.field() != null) {
          assertTrue(e.getMessage().startsWith(k.field() + ": "), e.getMessage());
        }
      }
      assertEquals(revision, c.state().revision());
      assertTrue(f.controller().audit(new AuditQuery(null, null, null, null, 0, 10)).isEmpty());
    }
  }

  private static List<String> fields(CommandRejectedException e) {
    return e.problems().stream().map(Problem::field).toList();
  }

  @Test
  void everyProblemOfACommandIsReportedAtOnceByTheSameRulesAsTheApi() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      TrafficController c = f.controller();
      long revision = c.state().revision();
      CommandRejectedException move =
          assertThrows(
              CommandRejectedException.class,
              () ->
                  c.startMove(
                      ALICE,
                      APP,
                      List.of("primary", "mars"),
                      List.of("standby"),
                      List.of(10, 20, 10, 100),
                      "moon",
                      "",
                      null));
      assertEquals(List.of("from[1]", "steps[2]", "region"), fields(move));
      assertTrue(
          move.getMessage()
              .contains("steps[2]: must be greater than the step before (20), was 10; region: "),
          move.getMessage());
      CommandRejectedException drill =
          assertThrows(
              CommandRejectedException.class,
              () -> c.startDrill(ALICE, APP, List.of("nope"), 80, 0, "", null));
      assertEquals(List.of("to[0]", "percent", "seconds"), fields(drill));
      CommandRejectedException weights =
          assertThrows(
              CommandRejectedException.class,
              () -> c.setWeights(ALICE, APP, Map.of("nope", 1), false, "x".repeat(1001), "bad id"));
      assertEquals(List.of("reason", "requestId", "weights.nope"), fields(weights));
      CommandRejectedException freeze =
          assertThrows(
              CommandRejectedException.class,
              () -> c.freeze(null, null, true, "x".repeat(1001), "bad id"));
      assertEquals(List.of("actor", "reason", "requestId"), fields(freeze));
      assertEquals(revision, c.state().revision(), "a rejected command changes nothing");
    }
  }

  @Test
  void aMoveToPoolsWithNoHealthyEndpointPausesAtItsStart() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.health("primary", Verdict.UP);
      f.controller().startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "m", null);
      assertEquals(10.0, f.shiftPercent("move"));
      f.tickAfter(s(1));
      assertEquals(0.0, f.shiftPercent("move"), "standby is not up: back to 0%");
      assertEquals("paused", status(f).ramp().get("state"));
    }
  }

  @Test
  void manualModeOnlyReportsTheNeedOnce() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "mode: manual\n")) {
      f.allUp();
      f.health("primary", Verdict.DOWN);
      for (int i = 0; i < 4; i++) {
        f.tickAfter(s(30));
      }
      assertTrue(f.plan().shifts().isEmpty());
      assertEquals(1, events(f, "failover-needed").size());
    }
  }
}
