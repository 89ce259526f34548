package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.AuditSink;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.testing.BlackHoleListener;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real black-holed port (connections time out, never refused) on the real clock, with short
 * timeouts: the endpoint goes down on timeouts of full-link runs that were in flight together.
 */
class BlackHoleEndToEndTest {
  @TempDir Path state;

  @Test
  void realTimeoutsOfOverlappingFullLinkRunsMakeItDown() throws Exception {
    List<String> failures = new CopyOnWriteArrayList<>();
    List<Integer> inFlightAtFailure = new CopyOnWriteArrayList<>();
    AtomicReference<ProbeService> service = new AtomicReference<>();
    GslbMetrics metrics =
        new GslbMetrics() {
          @Override
          public void probeCheck(String kind, boolean ok, String reason, long nanos) {
            // Called on the probe thread as a run finishes, so the count is the other runs.
            if (kind.equals("fullLink") && !ok) {
              failures.add(reason);
              inFlightAtFailure.add(service.get().inFlight());
            }
          }
        };
    try (BlackHoleListener hole = new BlackHoleListener()) {
      int port = hole.port();
      SnapshotStore store =
          new SnapshotStore(
              Snapshot.initial(
                  ProbeHarness.config(
                      state,
                      "{ vantage: node-a }",
                      "{ heartbeat: { type: tcp, port: "
                          + port
                          + ", interval: 1s, timeout: 300ms }, fullLink: { type: http, port: "
                          + port
                          + ", path: /ready, interval: 30s, timeout: 1s }, fastRecheck: 200ms }")));
      ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM);
      try (ProbeService s =
          ProbeService.start(
              store, AuditSink.NONE, metrics, ts, new SplittableRandom(7), ts, null)) {
        service.set(s);
        // A bound on the wait, not a speed assertion: expected in about 2.5 s.
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (store.current().health().get(ProbeHarness.ENDPOINT).verdict() != Verdict.DOWN) {
          assertTrue(System.nanoTime() < deadline, "not down: " + failures);
          Thread.sleep(20);
        }
      }
    }
    assertTrue(failures.size() >= 3, failures.toString());
    assertEquals(List.of("timeout", "timeout", "timeout"), failures.subList(0, 3));
    // One at a time, at most the heartbeat would be in flight beside a finishing full-link run.
    assertTrue(
        inFlightAtFailure.stream().anyMatch(n -> n >= 2),
        "full-link runs never overlapped: " + inFlightAtFailure);
  }
}
