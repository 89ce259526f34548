package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.DiskWrites;
import io.sluice.core.store.StoreUnavailableException;
import io.sluice.core.testing.ManualTicker;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk at the file layer: every write to the state directory stores half its bytes and then
 * fails with ENOSPC, as a write on a full file system does. Nothing the caller is told failed is
 * published or comes back after a restart, and every change that is durable has its audit event.
 */
class StoreFaultTest {
  private static final Actor ACTOR = new Actor("disk-test", "operator");

  @TempDir Path dir;

  /** Fails every write whose file name starts with the current prefix (null: none fail). */
  private final AtomicReference<String> failing = new AtomicReference<>();

  private final DiskWrites writes =
      (file, out, bytes, off, len) -> {
        String prefix = failing.get();
        if (prefix != null && file.getFileName().toString().startsWith(prefix)) {
          out.write(bytes, off, len / 2);
          throw new IOException("No space left on device");
        }
        out.write(bytes, off, len);
      };

  private final List<Boolean> health = new ArrayList<>();
  private final GslbMetrics metrics =
      new GslbMetrics() {
        @Override
        public void storeHealthy(boolean healthy) {
          health.add(healthy);
        }
      };

  private TrafficSystem open(SnapshotStore store, DiskWrites w) throws IOException {
    return TrafficSystem.openManual(
        store, dir, new ManualTicker(), metrics, g -> 0, io.sluice.core.spi.ShareEstimator.NONE, w);
  }

  private static SnapshotStore newStore() {
    return new SnapshotStore(Snapshot.initial(CrashChild.config()));
  }

  private static void weights(TrafficSystem sys, int n) throws Exception {
    sys.controlPlane()
        .setWeights(
            ACTOR, TrafficFixture.APP, Map.of("primary", n, "standby", n), false, "w", null);
  }

  private static int primary(SnapshotStore store) {
    return store.current().traffic().plan(TrafficFixture.APP).weights().get("primary");
  }

  private static List<AuditEvent> audit(TrafficSystem sys) {
    return sys.controlPlane().audit(new AuditQuery(null, ACTOR.name(), null, null, 0, 1000));
  }

  @Test
  void aFullDiskPublishesNothingAndTheFailedChangeNeverComesBack() throws Exception {
    SnapshotStore store = newStore();
    try (TrafficSystem sys = open(store, writes)) {
      weights(sys, 1);
      long version = store.current().version();

      failing.set(""); // every file
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> weights(sys, 2));
      assertTrue(e.full());
      assertTrue(e.getMessage().startsWith("state directory full: "), e.getMessage());
      assertEquals(version, store.current().version(), "nothing was published");
      assertEquals(1, primary(store));
      assertTrue(sys.controlPlane().storeProblem().isPresent());
      assertEquals(false, health.get(health.size() - 1), "the metric shows the store unhealthy");

      failing.set(null); // space freed
      sys.controller().retryStore(); // the controller's tick, with no command waiting
      assertFalse(sys.controlPlane().storeProblem().isPresent(), "healthy again without a command");
      assertEquals(true, health.get(health.size() - 1));
      weights(sys, 3);
      assertEquals(3, primary(store));
      assertFalse(sys.controlPlane().storeProblem().isPresent());
      assertEquals(true, health.get(health.size() - 1));
    }
    SnapshotStore again = newStore();
    try (TrafficSystem sys = open(again, DiskWrites.DIRECT)) {
      assertEquals(3, primary(again), "the failed change did not come back");
      List<Object> revisions = audit(sys).stream().map(a -> a.details().get("revision")).toList();
      assertEquals(List.of(2, 1), revisions, "one audit event per durable change, none for 2");
    }
  }

  @Test
  void verdictsGoOutOnAFullDiskWithoutTheReactionThatCouldNotBeJournaled() throws Exception {
    SnapshotStore store = newStore();
    try (TrafficSystem sys = open(store, writes)) {
      failing.set(""); // every file
      List<Long> recorded = new ArrayList<>();
      HealthPublisher.Published p =
          sys.healthPublisher()
              .publish(
                  h ->
                      h.withAll(
                          Map.of("primary/a", EndpointHealth.of(Verdict.DOWN, 0, "test")),
                          Set.of()),
                  x -> recorded.add(x.after().version()));
      assertEquals(Verdict.DOWN, store.current().health().verdict("primary/a"), "published");
      assertEquals(store.current().version(), p.after().version());
      assertEquals(List.of(p.after().version()), recorded, "recorded once, with its version");
      ServicePlan plan = store.current().traffic().plan(TrafficFixture.APP);
      assertTrue(plan.shifts().isEmpty(), "no failover that is not durable: " + plan);
      assertTrue(sys.controlPlane().storeProblem().isPresent());

      failing.set(null); // space freed
      sys.controller().retryStore();
      sys.controller().tick();
      assertFalse(
          store.current().traffic().plan(TrafficFixture.APP).shifts().isEmpty(),
          "the next tick starts the failover");
    }
  }

  @Test
  void aLostAuditWriteIsReDerivedFromTheJournalAndHoldsBackFurtherChanges() throws Exception {
    SnapshotStore store = newStore();
    try (TrafficSystem sys = open(store, writes)) {
      weights(sys, 1);
      failing.set("audit"); // only the audit log's disk is full
      weights(sys, 4); // durable, with its audit event in the journal record
      assertEquals(4, primary(store), "a durable change is published");
      assertTrue(sys.controlPlane().storeProblem().orElseThrow().contains("audit log"));
      StoreUnavailableException e =
          assertThrows(StoreUnavailableException.class, () -> weights(sys, 5));
      assertTrue(e.getMessage().startsWith("state directory full: "), e.getMessage());
      assertEquals(4, primary(store));
      assertEquals(1, audit(sys).size());
      sys.controller().retryStore();
      assertTrue(sys.controlPlane().storeProblem().isPresent(), "the audit disk is still full");
      assertEquals(1, audit(sys).size());
    }
    SnapshotStore again = newStore();
    try (TrafficSystem sys = open(again, DiskWrites.DIRECT)) {
      assertEquals(4, primary(again));
      List<AuditEvent> events = audit(sys);
      assertEquals(2, events.size(), "the lost line was written from the journal: " + events);
      assertEquals(List.of(2, 1), events.stream().map(a -> a.details().get("revision")).toList());
      assertTrue(events.get(0).versionAfter() > events.get(1).versionAfter());
    }
  }

  @Test
  void versionsNeverGoBackwardsAcrossRestarts() throws Exception {
    long last = 0;
    for (int run = 0; run < 3; run++) {
      SnapshotStore store = newStore();
      try (TrafficSystem sys = open(store, DiskWrites.DIRECT)) {
        assertTrue(store.current().version() > last, "run " + run + " resumed below " + last);
        weights(sys, run + 1);
        // Changes that are not journalled (health, reloads) take versions too.
        for (int i = 0; i < 5; i++) {
          store.update(s -> s.withHealth(s.health()));
        }
        last = store.current().version();
      }
    }
    SnapshotStore store = newStore();
    try (TrafficSystem sys = open(store, DiskWrites.DIRECT)) {
      List<AuditEvent> events = audit(sys);
      assertEquals(3, events.size());
      for (int i = 0; i + 1 < events.size(); i++) {
        assertTrue(
            events.get(i).versionAfter() > events.get(i + 1).versionAfter(),
            "audit versions only grow: " + events);
      }
    }
  }

  @Test
  void aLostSwitchRecordIsWrittenFromTheJournal() throws Exception {
    SnapshotStore store = newStore();
    String id;
    try (TrafficSystem sys = open(store, writes)) {
      sys.controlPlane()
          .setWeights(
              ACTOR, TrafficFixture.APP, Map.of("primary", 1, "standby", 3), true, "ramp", null);
      id = sys.controlPlane().switches(TrafficFixture.APP).get(0).id();
      failing.set("switches"); // only switches.jsonl cannot be written
      sys.controlPlane().rollback(ACTOR, TrafficFixture.APP, "bad", null);
      assertTrue(sys.controlPlane().storeProblem().orElseThrow().contains("switch records"));
      assertThrows(StoreUnavailableException.class, () -> weights(sys, 9));
    }
    SnapshotStore again = newStore();
    try (TrafficSystem sys = open(again, DiskWrites.DIRECT)) {
      assertEquals(
          "rolled-back",
          sys.controlPlane().switchRecord(id).orElseThrow().outcome(),
          "the finished record was written from the journal");
      assertFalse(sys.controlPlane().storeProblem().isPresent());
    }
  }

  @Test
  void aJournalOfTheFirstReleaseStillLoads() throws Exception {
    // The first release journalled the bare state, with no marker and no audit event.
    ControlState old = ControlState.INITIAL.withDrained(java.util.Set.of("standby")).nextRevision();
    try (var log = io.sluice.core.store.FileDurableLog.open(dir.resolve("traffic"))) {
      log.commit(TrafficSystem.mapper().writeValueAsBytes(old));
    }
    java.nio.file.Files.delete(dir.resolve("traffic/store.properties"));
    SnapshotStore store = newStore();
    try (TrafficSystem sys = open(store, DiskWrites.DIRECT)) {
      assertEquals(java.util.Set.of("standby"), sys.controller().state().drained());
      weights(sys, 2);
    }
  }
}
