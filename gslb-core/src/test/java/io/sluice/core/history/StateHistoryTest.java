package io.sluice.core.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ObservabilityConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.state.TrafficState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history of served states: a line only when an input of the chain changed (RTT alone at most
 * once per interval), the state in force at any kept time, bounded by count with the file
 * compacted, and the same states after a restart.
 */
class StateHistoryTest {
  private static final String SVC = "app.example.test.";

  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final AtomicLong configVersion = new AtomicLong(1);

  private static SluiceConfig config() {
    return SluiceConfig.defaults();
  }

  private StateHistory open(int maxEntries) throws Exception {
    return StateHistory.open(
        dir,
        new ObservabilityConfig.History(
            true, maxEntries, Duration.ofDays(1), Duration.ofMinutes(1)),
        clock::get,
        configVersion::get);
  }

  private static TrafficState shifted(double percent) {
    return TrafficState.EMPTY.withPlan(
        SVC,
        ServicePlan.DEFAULT.withShifts(
            List.of(new Shift("m1", List.of("eu-1"), List.of("us-1"), percent))));
  }

  private static EndpointHealth health(Verdict v, double rtt) {
    return new EndpointHealth(v, 0, "test", false, rtt, rtt, 0);
  }

  @Test
  void recordsChangesOfTheChainsInputsAndFindsTheStateInForce() throws Exception {
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config()));
    StateHistory h = open(1000);
    h.follow(store);
    clock.set(2_000_000);
    store.update(s -> s.withTraffic(shifted(10)));
    clock.set(3_000_000);
    store.update(s -> s.withHealth(s.health().with("eu-1/a", health(Verdict.UP, 5))));
    // RTT alone, sooner than rttInterval after the last health line: not worth a line.
    clock.set(3_010_000);
    store.update(s -> s.withHealth(s.health().with("eu-1/a", health(Verdict.UP, 9))));
    clock.set(4_000_000);
    store.update(s -> s.withTraffic(TrafficState.EMPTY));
    // A new snapshot with the same inputs (a version bump only) is no change either.
    store.update(s -> s.withTraffic(new TrafficState(Map.of(), false, Set.of())));
    h.flush();

    assertEquals(4, h.entries().size(), "start, shift, verdict, rollback: " + h.entries());
    assertTrue(h.at(999_999).isEmpty(), "before the history begins");
    assertEquals(TrafficState.EMPTY, h.at(1_500_000).orElseThrow().traffic());
    StateHistory.Entry during = h.at(2_500_000).orElseThrow();
    assertEquals(10, during.traffic().plan(SVC).shifts().get(0).percent());
    assertEquals(Verdict.UNKNOWN, during.health().verdict("eu-1/a"));
    StateHistory.Entry up = h.at(3_500_000).orElseThrow();
    assertEquals(Verdict.UP, up.health().verdict("eu-1/a"));
    assertEquals(5, up.health().get("eu-1/a").rttP50Millis());
    assertEquals(TrafficState.EMPTY, h.at(5_000_000).orElseThrow().traffic());
    assertEquals(1, h.at(5_000_000).orElseThrow().configVersion());
    h.close();

    List<String> lines = Files.readAllLines(dir.resolve(StateHistory.FILE));
    assertEquals(4, lines.size());
    assertFalse(lines.get(2).contains("\"traffic\""), "only what changed: " + lines.get(2));

    StateHistory again = open(1000);
    try {
      assertEquals(
          h.entries().stream().map(StateHistory.Entry::traffic).toList(),
          again.entries().stream().map(StateHistory.Entry::traffic).toList());
      assertEquals(Verdict.UP, again.at(3_500_000).orElseThrow().health().verdict("eu-1/a"));
      assertEquals(2_000_000, again.at(2_500_000).orElseThrow().timeMillis());
    } finally {
      again.close();
    }
  }

  @Test
  void keepsAtMostMaxEntriesAndCompactsTheFile() throws Exception {
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config()));
    StateHistory h = open(10);
    h.follow(store);
    for (int i = 1; i <= 50; i++) {
      clock.set(1_000_000 + i * 1000L);
      double percent = i;
      store.update(s -> s.withTraffic(shifted(percent)));
    }
    h.flush();
    assertEquals(10, h.entries().size());
    assertEquals(41, h.entries().get(0).traffic().plan(SVC).shifts().get(0).percent());
    assertTrue(h.at(1_000_000 + 30 * 1000L).isEmpty(), "older than what is kept");
    h.close();
    long lines = Files.readAllLines(dir.resolve(StateHistory.FILE)).size();
    assertTrue(lines <= 20, "compacted: " + lines + " lines");

    StateHistory again = open(10);
    try {
      assertEquals(10, again.entries().size());
      StateHistory.Entry last = again.at(Long.MAX_VALUE).orElseThrow();
      assertEquals(50, last.traffic().plan(SVC).shifts().get(0).percent());
      assertSame(Verdict.UNKNOWN, last.health().verdict("eu-1/a"));
    } finally {
      again.close();
    }
  }
}
