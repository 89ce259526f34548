package io.sluice.core.traffic;

import static io.sluice.core.traffic.TrafficControllerTest.ALICE;
import static io.sluice.core.traffic.TrafficControllerTest.RAMP;
import static io.sluice.core.traffic.TrafficControllerTest.events;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The controller's own steps run only on the leader; operator commands run on every node. */
class TrafficLeadershipTest {
  @TempDir Path dir;

  private static Duration s(long seconds) {
    return Duration.ofSeconds(seconds);
  }

  @Test
  void aFollowerPublishesVerdictsWithoutReactingAndTheLeaderReactsOnItsFirstTick()
      throws Exception {
    AtomicBoolean leads = new AtomicBoolean(false);
    try (TrafficFixture f = new TrafficFixture(dir, RAMP, g -> 0.0, leads::get)) {
      f.allUp();
      f.tickAfter(s(1));
      f.verdict("primary", Verdict.DOWN);
      assertEquals(Verdict.DOWN, f.store.current().health().verdict("primary/a"));
      for (int i = 0; i < 5; i++) {
        f.tickAfter(s(30));
      }
      assertTrue(f.plan().shifts().isEmpty(), "a follower never fails over by itself");
      assertTrue(events(f, "failover-start").isEmpty());
      assertTrue(events(f, "ttl-compressed").isEmpty());

      leads.set(true);
      f.tickAfter(s(1));
      assertEquals(10.0, f.shiftPercent("failover"));
      assertEquals(1, events(f, "failover-start").size());
    }
  }

  @Test
  void aFollowerTakesCommandsButNeverStepsARampAndContinuesItAtTheNextStepOnceItLeads()
      throws Exception {
    AtomicBoolean leads = new AtomicBoolean(true);
    try (TrafficFixture f = new TrafficFixture(dir, RAMP, g -> 0.0, leads::get)) {
      f.allUp();
      f.tickAfter(s(1));
      f.controller()
          .startMove(
              ALICE, "app.example.com", List.of("primary"), List.of("spare"), null, "t", null);
      f.tickAfter(s(31));
      assertEquals(30.0, f.shiftPercent("move"), "the leader stepped once");

      // The leader goes away: this node follows; an operator's command still applies here.
      leads.set(false);
      f.controller().freeze(ALICE, "app.example.com", true, "hold", null);
      f.controller().freeze(ALICE, "app.example.com", false, "go on", null);
      for (int i = 0; i < 4; i++) {
        f.tickAfter(s(31));
      }
      assertEquals(30.0, f.shiftPercent("move"), "a follower never advances a ramp");
      assertEquals(1, events(f, "ramp-step").size());

      // Taking over, it continues from the step and its start time in the state: one step to
      // 60%, judged on the evidence counted while it followed, never 30% again.
      leads.set(true);
      f.tickAfter(s(1));
      assertEquals(60.0, f.shiftPercent("move"));
      assertEquals(2, events(f, "ramp-step").size());
      f.tickAfter(s(1));
      assertEquals(60.0, f.shiftPercent("move"), "the next step waits for its own window");
      SwitchRecord rec = f.controller().switches(TrafficFixture.APP).get(0);
      assertEquals(
          List.of(10.0, 30.0, 60.0),
          rec.steps().stream()
              .filter(st -> st.get("event").equals("step"))
              .map(st -> (Double) st.get("percent"))
              .toList());
    }
  }
}
