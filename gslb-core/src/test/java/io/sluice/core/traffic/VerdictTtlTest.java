package io.sluice.core.traffic;

import static io.sluice.core.traffic.TrafficControllerTest.RAMP;
import static io.sluice.core.traffic.TrafficControllerTest.events;
import static io.sluice.core.traffic.TrafficControllerTest.status;
import static io.sluice.core.traffic.TrafficFixture.APP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.AuditEvent;
import io.sluice.core.health.Verdict;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Snapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A verdict that changes a service's answers is published in one snapshot with the short TTL: every
 * snapshot ever published is recorded, and none serves changed answers with the long TTL.
 */
class VerdictTtlTest {
  @TempDir Path dir;

  /** What answers for {@code app} follow in one published snapshot. */
  private record Served(long version, String usable, long ttl, boolean failover) {}

  /** Records every snapshot the store publishes from now on. */
  private static List<Served> record(TrafficFixture f) {
    List<Served> seen = new CopyOnWriteArrayList<>();
    f.store.addListener(s -> seen.add(served(s)));
    return seen;
  }

  private static Served served(Snapshot s) {
    String usable =
        List.of("primary/a", "primary/b", "standby/a", "spare/a").stream()
            .filter(k -> s.health().verdict(k).usable())
            .collect(Collectors.joining(","));
    ServicePlan plan = s.traffic().plan(APP);
    long ttl = plan == null || plan.ttlOverride() == null ? 60 : plan.ttlOverride();
    boolean failover =
        plan != null && plan.shifts().stream().anyMatch(x -> x.id().startsWith("failover"));
    return new Served(s.version(), usable, ttl, failover);
  }

  /** Every snapshot whose usable endpoints differ from {@code before}'s must serve TTL 10. */
  private static void assertChangedAnswersServeTheShortTtl(List<Served> seen, String before) {
    List<Served> changed = seen.stream().filter(x -> !x.usable().equals(before)).toList();
    assertFalse(changed.isEmpty(), "the verdict change was published: " + seen);
    for (Served x : changed) {
      assertEquals(10, x.ttl(), "changed answers with the long TTL in " + x + "; all: " + seen);
    }
  }

  @Test
  void aFailoverAndItsShortTtlGoOutWithTheVerdictThatCausedIt() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      String before = served(f.store.current()).usable();
      List<Served> seen = record(f);
      f.verdict("primary", Verdict.DOWN);
      assertChangedAnswersServeTheShortTtl(seen, before);
      assertTrue(seen.get(0).failover(), "the failover starts in the same snapshot: " + seen);
      assertEquals(1, events(f, "failover-start").size());
      AuditEvent cause = events(f, "verdict-change").get(0);
      AuditEvent effect = events(f, "failover-start").get(0);
      assertTrue(cause.seq() < effect.seq(), "the audit log reads cause before effect");
      assertEquals(cause.versionAfter(), effect.versionAfter(), "one snapshot");
      assertEquals(seen.get(0).version(), effect.versionAfter());
      // The tick the new health view schedules finds nothing left to start.
      f.tickAfter(Duration.ofSeconds(1));
      assertEquals(1, events(f, "failover-start").size());
      assertTrue(events(f, "ttl-compressed").isEmpty(), "the ramp's own short TTL covers it");
    }
  }

  @Test
  void manualModeServesTheShortTtlFromTheFirstChangedAnswerAndForTheRecoveryToo() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP + "mode: manual\n")) {
      f.allUp();
      String before = served(f.store.current()).usable();
      List<Served> seen = record(f);
      f.verdict("primary", Verdict.DOWN);
      assertChangedAnswersServeTheShortTtl(seen, before);
      assertFalse(seen.get(0).failover(), "manual mode shifts nothing");
      assertEquals(1, events(f, "failover-needed").size());
      assertEquals(1, events(f, "ttl-compressed").size());

      // Until every long answer from before the change has expired (60 s TTL + 5 s margin).
      f.tickAfter(Duration.ofSeconds(64));
      assertEquals(10L, status(f).ttlServed());
      f.tickAfter(Duration.ofSeconds(1));
      assertEquals(60L, status(f).ttlServed());

      String down = served(f.store.current()).usable();
      seen.clear();
      f.verdict("primary", Verdict.UP);
      assertChangedAnswersServeTheShortTtl(seen, down);
    }
  }

  @Test
  void oneEndpointLeavingTheAnswersCompressesTheTtlNothingElseDoes() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      f.allUp();
      String before = served(f.store.current()).usable();
      List<Served> seen = record(f);
      // Same verdicts, new evidence: the answers do not change, the TTL stays long.
      f.verdict("standby", Verdict.UP);
      f.verdict("primary", Verdict.SUSPECT);
      assertTrue(seen.stream().allMatch(x -> x.ttl() == 60), seen.toString());

      f.verdict("primary/a", Verdict.DOWN);
      assertChangedAnswersServeTheShortTtl(seen, before);
      assertFalse(seen.get(seen.size() - 1).failover(), "primary still has an endpoint up");
    }
  }
}
