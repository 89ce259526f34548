package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.CommandResult;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.testing.AckingChild;
import io.sluice.core.testing.ManualTicker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@code kill -9} via {@link Process#destroyForcibly()}) at random points
 * in a stream of acknowledged commands, restarts it, and checks that every acknowledged change
 * survived and that no change appears half-applied.
 */
class CrashRecoveryTest {
  static final int KILLS = 50;
  @TempDir Path dir;

  @Test
  void noAcknowledgedChangeIsLostAcrossFiftyKills() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    // Two independent state directories, each with its own stream of children, halve the time.
    ExecutorService streams = Executors.newFixedThreadPool(2);
    try {
      Future<Integer> a = streams.submit(() -> killLoop(dir.resolve("a"), KILLS / 2, 42, deadline));
      Future<Integer> b =
          streams.submit(() -> killLoop(dir.resolve("b"), KILLS - KILLS / 2, 43, deadline));
      int ackedA = unwrap(a);
      int ackedB = unwrap(b);
      verifyRestart(dir.resolve("a"), ackedA);
      verifyRestart(dir.resolve("b"), ackedB);
      System.out.println(
          "crash test: " + KILLS + " kills, " + (ackedA + ackedB) + " acknowledged commands");
    } finally {
      streams.shutdownNow();
    }
  }

  private static int unwrap(Future<Integer> f) throws Exception {
    try {
      return f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw (Exception) e.getCause();
    }
  }

  /** Starts and kills {@code kills} children in turn on {@code dir}; returns the last ack seen. */
  private static int killLoop(Path dir, int kills, long seed, long deadline) throws Exception {
    Random random = new Random(seed);
    int acked = 0;
    int done = 0;
    for (; done < kills && System.nanoTime() < deadline; done++) {
      Process p = AckingChild.start(CrashChild.class, dir.toString());
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String first = AckingChild.protocolLine(in, new StringBuilder());
        assertTrue(first != null && first.startsWith("restored "), "child said: " + first);
        String[] parts = first.split(" ");
        int restored = Integer.parseInt(parts[1]);
        assertEquals(parts[1], parts[2], "both weights of one command restored together");
        assertTrue(restored >= acked, "acknowledged " + acked + " but restored only " + restored);
        assertTrue(restored <= acked + 1, "restored " + restored + " beyond the one in flight");
        acked = restored;
        // Kill after a random number of acknowledgements, sometimes mid-command.
        int target = random.nextInt(8);
        acked = AckingChild.killAfter(p, in, target, random, 3, acked, new StringBuilder());
      } finally {
        p.destroyForcibly();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
      }
    }
    assertEquals(kills, done, "kills within the time bound");
    return acked;
  }

  private static void verifyRestart(Path dir, int acked) throws Exception {
    assertTrue(acked > 0, "no command was acknowledged at all");
    SnapshotStore store = new SnapshotStore(Snapshot.initial(CrashChild.config()));
    try (TrafficSystem sys =
        TrafficSystem.openManual(
            store, dir, new ManualTicker(), io.sluice.core.spi.GslbMetrics.NOOP, g -> 0)) {
      Map<String, Integer> w = store.current().traffic().plan(TrafficFixture.APP).weights();
      int restored = w.get("primary");
      assertEquals(w.get("primary"), w.get("standby"));
      assertTrue(
          restored >= acked && restored <= acked + 1, "acked " + acked + ", got " + restored);
      // The last acknowledged request id is still remembered: its retry changes nothing.
      CommandResult retry =
          sys.controlPlane()
              .setWeights(
                  TrafficControllerTest.ALICE,
                  TrafficFixture.APP,
                  Map.of("primary", 1, "standby", 1),
                  false,
                  "retry",
                  "r" + acked);
      assertTrue(retry.changed());
      assertEquals(
          restored, store.current().traffic().plan(TrafficFixture.APP).weights().get("primary"));
      // Every durable change has exactly one audit event, even when the kill came between the
      // journal fsync and the audit line (the line is then re-derived from the journal).
      java.util.Set<Object> revisions = new java.util.HashSet<>();
      int events = 0;
      for (int offset = 0; ; offset += 1000) {
        var page =
            sys.controller().audit(new AuditQuery(null, "crash-test", null, null, offset, 1000));
        for (var e : page) {
          revisions.add(e.details().get("revision"));
          events++;
        }
        if (page.size() < 1000) {
          break;
        }
      }
      assertEquals(restored, events, "one audit event per durable change");
      assertEquals(restored, revisions.size(), "no audit event duplicated");
    }
  }
}
