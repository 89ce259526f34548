package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.CheckType;
import io.sluice.core.health.Verdict;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.testing.ManualTaskScheduler;
import io.sluice.probe.testing.RecordingAudit;
import io.sluice.probe.testing.RecordingMetrics;
import io.sluice.probe.testing.SimulatedBackend;
import io.sluice.probe.testing.SimulatedBackend.Mode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Detection of a backend whose checks time out instead of being refused, with the default probe
 * settings (heartbeat 5 s / 2 s, full-link 30 s / 5 s, downAfter 3, fastRecheck 1 s, 3 attempts),
 * on a manual clock with a simulated backend so every timeout falls at an exact time.
 */
class BlackHoleTimingTest {
  private static final long SECOND = 1_000_000_000L;
  private static final Duration STEP = Duration.ofMillis(10);

  @TempDir Path state;
  final ManualTaskScheduler clock = new ManualTaskScheduler();
  final RecordingAudit audit = new RecordingAudit();
  final RecordingMetrics metrics = new RecordingMetrics();
  SimulatedBackend backend;
  SnapshotStore store;
  ProbeService service;

  @BeforeEach
  void start() throws Exception {
    backend = new SimulatedBackend(clock);
    store =
        new SnapshotStore(
            Snapshot.initial(
                ProbeHarness.config(
                    state,
                    "{ vantage: node-a }",
                    "{ heartbeat: { type: tcp, port: 443 },"
                        + " fullLink: { type: http, port: 443, path: /ready } }")));
    service =
        ProbeService.start(store, audit, metrics, clock, new SplittableRandom(42), null, backend);
    clock.settle();
    advanceUntil(Verdict.UP, Duration.ofSeconds(5));
    clock.advance(Duration.ofMinutes(2));
    assertEquals(Verdict.UP, verdict());
  }

  @AfterEach
  void stop() {
    service.close();
  }

  private Verdict verdict() {
    return store.current().health().get(ProbeHarness.ENDPOINT).verdict();
  }

  private long now() {
    return clock.ticker().nanoTime();
  }

  /** Advances in 10 ms steps until the verdict is {@code v}; returns the time it was seen. */
  private long advanceUntil(Verdict v, Duration limit) {
    long end = now() + limit.toNanos();
    while (verdict() != v) {
      assertTrue(now() < end, "still " + verdict() + ", runs " + backend.runs);
      clock.advance(STEP);
    }
    return now();
  }

  /**
   * The worst moment for a backend to die: right after a heartbeat passed, so the next heartbeat is
   * a whole (jittered) interval away. Returns that moment.
   */
  private long dieRightAfterAHeartbeat(Mode how) {
    int before = backend.starts(CheckType.TCP, 0).size();
    long limit = now() + 6 * SECOND;
    while (backend.starts(CheckType.TCP, 0).size() == before) {
      assertTrue(now() < limit, "no heartbeat within 6 s");
      clock.advance(STEP);
    }
    backend.mode(how);
    return now();
  }

  @Test
  void aBlackHoledBackendIsDownNineSecondsAfterItsNextHeartbeatWithinFifteen() {
    long died = dieRightAfterAHeartbeat(Mode.BLACK_HOLE);
    long downSeen = advanceUntil(Verdict.DOWN, Duration.ofSeconds(20));

    long heartbeat = backend.starts(CheckType.TCP, died).get(0);
    assertTrue(
        heartbeat - died <= 55 * SECOND / 10, "next heartbeat " + (heartbeat - died) + " ns later");
    // The heartbeat times out after 2 s and starts the full-link confirmation at once; fast runs
    // follow every second while earlier ones are still waiting for their 5 s timeout, three at
    // most in flight, so the fourth waits for the first to time out.
    List<Long> fullLinks = backend.starts(CheckType.HTTP, died);
    assertEquals(
        List.of(2 * SECOND, 3 * SECOND, 4 * SECOND, 7 * SECOND),
        fullLinks.subList(0, 4).stream().map(t -> t - heartbeat).toList(),
        "full-link runs after the heartbeat");
    // Down at the third timeout, 4 s + 5 s after the heartbeat, published within 100 ms.
    long down = heartbeat + 9 * SECOND;
    assertTrue(downSeen >= down, "down " + (down - downSeen) + " ns early");
    assertTrue(
        downSeen <= down + HealthEngine.PUBLISH_DELAY_MS * 1_000_000 + STEP.toNanos(),
        "down " + (downSeen - down) + " ns after the third timeout");
    assertTrue(downSeen - died <= 15 * SECOND, "down " + (downSeen - died) + " ns after dying");
    assertEquals(3, metrics.failures("fullLink"));
    assertTrue(
        metrics.checks.stream()
            .filter(c -> c.kind().equals("fullLink") && !c.ok())
            .allMatch(c -> c.reason().equals("timeout")),
        metrics.checks.toString());
    assertTrue(
        store.current().health().get(ProbeHarness.ENDPOINT).reason().contains("full-link failing"));
  }

  @Test
  void aRefusingBackendIsDownTwoSecondsAfterItsNextHeartbeat() {
    long died = dieRightAfterAHeartbeat(Mode.REFUSES);
    long downSeen = advanceUntil(Verdict.DOWN, Duration.ofSeconds(15));
    long heartbeat = backend.starts(CheckType.TCP, died).get(0);
    // Refusals are tried 3 times each; the runs at +0, +1 and +2 s decide.
    List<Long> fullLinks = backend.starts(CheckType.HTTP, died);
    assertEquals(0, fullLinks.get(0) - heartbeat);
    long down = heartbeat + 2 * SECOND;
    assertTrue(downSeen >= down, "down " + (down - downSeen) + " ns early");
    assertTrue(downSeen <= down + HealthEngine.PUBLISH_DELAY_MS * 1_000_000 + STEP.toNanos());
    assertEquals(3, metrics.failures("fullLink"));
  }

  @Test
  void oneTimedOutRunIsAbsorbed() {
    // Black-hole the backend until the next check run has started, then answer again.
    int before = backend.runs.size();
    backend.mode(Mode.BLACK_HOLE);
    while (backend.runs.size() == before) {
      clock.advance(STEP);
    }
    backend.mode(Mode.ANSWERS);
    for (int i = 0; i < 120; i++) {
      clock.advance(Duration.ofSeconds(1));
      assertEquals(
          Verdict.UP, verdict(), store.current().health().get(ProbeHarness.ENDPOINT).reason());
    }
    assertEquals(1, metrics.checks.stream().filter(c -> c.reason().equals("timeout")).count());
    assertTrue(
        audit.actions("verdict-change").isEmpty(), audit.actions("verdict-change").toString());
  }

  @Test
  void aPassDuringFastModeClearsItAndTheEarlierRunsLateTimeoutIsDropped() {
    long died = dieRightAfterAHeartbeat(Mode.BLACK_HOLE);
    // Wait for the first confirming full-link run (2 s after the heartbeat), then recover.
    while (backend.starts(CheckType.HTTP, died).isEmpty()) {
      assertTrue(now() - died < 10 * SECOND, "no full-link confirmation");
      clock.advance(STEP);
    }
    long first = backend.starts(CheckType.HTTP, died).get(0);
    backend.mode(Mode.ANSWERS);
    clock.advance(Duration.ofSeconds(20));

    // The run 1 s later passed and ended fast mode; the first run's timeout at +5 s finished
    // after that pass was applied, so it is stale: it neither counts nor restarts fast mode
    // (applied, it would have started a fast run at +6 s). The next run is the regular one.
    assertEquals(
        List.of(first, first + SECOND),
        backend.starts(CheckType.HTTP, died).stream()
            .filter(t -> t < first + 10 * SECOND)
            .toList());
    assertEquals(1, metrics.failures("fullLink"), "the late timeout still counts as a check run");
    assertEquals(Verdict.UP, verdict());
    assertTrue(
        audit.actions("verdict-change").isEmpty(), audit.actions("verdict-change").toString());
  }
}
