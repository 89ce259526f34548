package io.sluice.probe.debounce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import org.junit.jupiter.api.Test;

class VantageTrackerTest {
  private static Observation o(boolean ok) {
    return new Observation("v", "fullLink", ok, 1, ok ? null : "x", 0);
  }

  @Test
  void downAfterThreeFailuresUpAfterTwoSuccessesWithFastRechecks() {
    VantageTracker t = new VantageTracker(3, 2, true);
    assertFalse(t.record(Layer.FULL_LINK, o(true), 0));
    assertEquals(Verdict.UP, t.opinion());
    assertTrue(t.record(Layer.FULL_LINK, o(false), 1), "recheck after a first failure");
    assertTrue(t.record(Layer.FULL_LINK, o(false), 2));
    assertEquals(Verdict.UP, t.opinion());
    assertFalse(t.record(Layer.FULL_LINK, o(false), 3), "no recheck once down");
    assertEquals(Verdict.DOWN, t.opinion());
    assertEquals(3, t.streakFor(Verdict.DOWN));
    assertTrue(t.record(Layer.FULL_LINK, o(true), 4), "recheck on the way back");
    assertEquals(Verdict.DOWN, t.opinion());
    t.record(Layer.FULL_LINK, o(true), 5);
    assertEquals(Verdict.UP, t.opinion());
    assertEquals(VantageTracker.EVIDENCE, t.recent().size());
  }

  @Test
  void aFailingHeartbeatMakesSuspectAndAsksForAFullLinkRecheck() {
    VantageTracker t = new VantageTracker(3, 2, true);
    t.record(Layer.FULL_LINK, o(true), 0);
    for (int i = 0; i < 3; i++) {
      assertTrue(t.record(Layer.HEARTBEAT, o(false), i));
    }
    assertEquals(Verdict.SUSPECT, t.opinion());
  }

  @Test
  void aLoneHeartbeatDecides() {
    VantageTracker t = new VantageTracker(2, 1, false);
    t.record(Layer.HEARTBEAT, o(false), 0);
    t.record(Layer.HEARTBEAT, o(false), 1);
    assertEquals(Verdict.DOWN, t.opinion());
    assertTrue(t.fresh(1, 0));
    assertFalse(t.fresh(10, 5));
  }
}
