package io.sluice.probe.debounce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.HealthConfig;
import io.sluice.core.health.Verdict;
import org.junit.jupiter.api.Test;

class VerdictGateTest {
  private static final long S = 1_000_000_000L;
  private static final HealthConfig DEFAULTS = HealthConfig.defaults();

  @Test
  void theFirstEvidenceReplacesARestoredVerdictAtOnce() {
    VerdictGate g = new VerdictGate(DEFAULTS, Verdict.DOWN, true);
    assertTrue(g.propose(Verdict.UP, 1, 0).changed());
    // ...and it is not a change to cool down from: a failure right after goes through.
    assertTrue(g.propose(Verdict.DOWN, 3, S).changed());
  }

  @Test
  void aFlipBackWaitsForTheCooldownUnlessTheEvidenceIsOverwhelming() {
    VerdictGate g = new VerdictGate(DEFAULTS, Verdict.UNKNOWN, true);
    g.propose(Verdict.UP, 1, 0);
    g.propose(Verdict.DOWN, 3, 10 * S);
    VerdictGate.Outcome early = g.propose(Verdict.UP, 2, 30 * S);
    assertFalse(early.changed());
    assertEquals(new VerdictGate.Rule.Cooldown(), early.rule());
    assertEquals("cooldown", early.reason());
    assertEquals(70 * S, early.retryAtNanos());
    assertFalse(g.propose(Verdict.UP, 50, 69 * S).changed(), "a recovery never breaks it");
    assertTrue(g.propose(Verdict.UP, 2, 70 * S).changed());
    // Failing again within the cooldown after the recovery needs 6 consecutive failures.
    assertFalse(g.propose(Verdict.DOWN, 5, 75 * S).changed());
    VerdictGate.Outcome broken = g.propose(Verdict.DOWN, 6, 76 * S);
    assertTrue(broken.changed());
    assertEquals(new VerdictGate.Rule.CooldownBroken(6), broken.rule());
    assertEquals("cooldown broken by 6 consecutive results", broken.reason());
    assertFalse(broken.startsFlapHold(), "a broken cooldown is a verdict change, not a hold");
  }

  @Test
  void worseningIsNeverDelayedByTheCooldown() {
    VerdictGate g = new VerdictGate(DEFAULTS, Verdict.UNKNOWN, true);
    g.propose(Verdict.UP, 1, 0);
    assertTrue(g.propose(Verdict.SUSPECT, 3, 100 * S).changed());
    assertTrue(g.propose(Verdict.DOWN, 3, 101 * S).changed());
  }

  @Test
  void moreThanFlapLimitChangesHoldTheWorstVerdictWithDoublingHolds() {
    HealthConfig h =
        new HealthConfig(
            null,
            null,
            null,
            null,
            null,
            null,
            java.time.Duration.ZERO,
            null,
            4,
            null,
            java.time.Duration.ofMinutes(2),
            null);
    VerdictGate g = new VerdictGate(h, Verdict.UNKNOWN, true);
    g.propose(Verdict.UP, 1, 0);
    long t = S;
    for (int i = 0; i < 4; i++, t += 10 * S) {
      assertTrue(g.propose(i % 2 == 0 ? Verdict.DOWN : Verdict.UP, 3, t).changed());
    }
    VerdictGate.Outcome hold = g.propose(Verdict.DOWN, 3, t);
    assertEquals(new VerdictGate.Rule.FlapHoldStarted(5, 120), hold.rule());
    assertTrue(hold.startsFlapHold());
    assertEquals("flap damping: 5 changes within the flap window, held for 120 s", hold.reason());
    assertEquals(Verdict.DOWN, g.current());
    assertEquals(t + 120 * S, g.holdUntilNanos());
    VerdictGate.Outcome held = g.propose(Verdict.UP, 10, t + 60 * S);
    assertFalse(held.changed());
    assertEquals(new VerdictGate.Rule.FlapDamping(), held.rule());
    assertFalse(held.startsFlapHold(), "a change held by a running hold starts none");
    long after = t + 121 * S;
    assertTrue(g.propose(Verdict.UP, 2, after).changed(), "one change after a hold");
    VerdictGate.Outcome again = g.propose(Verdict.DOWN, 3, after + 5 * S);
    assertTrue(again.startsFlapHold(), again.reason());
    assertEquals(after + 5 * S + 240 * S, g.holdUntilNanos());
  }
}
