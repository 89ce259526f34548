package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.testing.ManualTicker;
import io.sluice.core.testing.MemorySharedState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state writer of cluster nodes over the shared store's contract (an in-memory store standing
 * in for etcd's {@code state} key): adoption of other nodes' records, conflicts, idempotent retries
 * across nodes, cuts and the return from them.
 */
class ClusteredStateTest {
  private static final String APP = TrafficFixture.APP;
  private static final Actor ALICE = new Actor("alice", "operator");
  private static final Actor BOB = new Actor("bob", "operator");
  private static final String RAMP =
      """
      steps: [10, 30, 60, 100]
      window: 30s
      cooldown: 60s
      shiftTtl: 10
      """;

  @TempDir Path dir;

  private final MemorySharedState shared = new MemorySharedState();

  /** One node: its own snapshot store, state directory, clock and log onto the shared store. */
  private final class Node implements AutoCloseable {
    final String name;
    final MemorySharedState.Node link;
    final ManualTicker ticker = new ManualTicker();
    final SnapshotStore store;
    TrafficSystem system;

    Node(String name) throws Exception {
      this(name, null);
    }

    /** A node whose link is cut for {@code cut} (null: not cut) before it opens. */
    Node(String name, String cut) throws Exception {
      this.name = name;
      this.link = shared.node(name);
      if (cut != null) {
        link.cut(cut);
      }
      this.store = new SnapshotStore(Snapshot.initial(TrafficFixture.config(RAMP)));
      open();
    }

    void open() throws IOException {
      system =
          TrafficSystem.openManualClustered(
              store,
              dir.resolve(name),
              ticker,
              new TrafficFixture.RecordingMetrics(),
              g -> 0.0,
              link);
    }

    TrafficController controller() {
      return system.controller();
    }

    List<AuditEvent> audit() {
      return controller().audit(new AuditQuery(null, null, null, null, 0, 1000));
    }

    AuditEvent lastAudit(String action) {
      return audit().stream().filter(e -> e.action().equals(action)).findFirst().orElse(null);
    }

    @Override
    public void close() throws IOException {
      system.close();
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s: " + what);
      }
      Thread.sleep(10);
    }
  }

  private static void awaitSame(Node a, Node b) throws InterruptedException {
    await(
        b.name + " at " + a.name + "'s revision",
        () -> b.controller().appliedRevision() == a.controller().appliedRevision());
  }

  @Test
  void aDrainThroughOneNodeIsAnsweredByTheOtherWithTheAuditLineNamingItsOrigin() throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      a.controller().drain(ALICE, "primary/a", true, "maintenance", "req-1");
      await(
          "b publishes the drain",
          () -> b.store.current().traffic().drained().contains("primary/a"));
      AuditEvent heard = b.lastAudit("drain");
      assertNotNull(heard, "b's audit log has the drain made on a");
      assertEquals("alice", heard.actor());
      assertEquals("a", heard.details().get("origin"));
      assertEquals(a.controller().appliedRevision(), number(heard.details().get("sharedRevision")));
      // The audit event names the snapshot version of b that follows it.
      assertEquals(b.store.current().version(), heard.versionAfter());
    }
  }

  @Test
  void aStaleNodeAdoptsTheNewerRecordAndRunsTheCommandAgainSoNeitherChangeIsLost()
      throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      b.link.deaf(true); // b does not hear a's commit: its view is stale when it commits
      a.controller().setWeights(ALICE, APP, Map.of("primary", 5), false, "first", null);
      CommandResult r =
          b.controller().setWeights(BOB, APP, Map.of("standby", 7), false, "second", null);
      assertTrue(r.changed());
      b.link.deaf(false);
      await(
          "a adopts b's change",
          () ->
              a.store.current().traffic().plan(APP).weights().size() == 3
                  || a.controller().appliedRevision() == b.controller().appliedRevision());
      awaitSame(b, a);
      for (Node n : List.of(a, b)) {
        Map<String, Integer> w = n.store.current().traffic().plan(APP).weights();
        assertEquals(5, w.get("primary"), n.name + ": " + w);
        assertEquals(7, w.get("standby"), n.name + ": " + w);
      }
      // b wrote a's audit line (adopted on the conflict) before its own.
      List<AuditEvent> onB = b.audit();
      int first = indexOf(onB, "first");
      int second = indexOf(onB, "second");
      assertTrue(first > second, "newest first: " + onB);
    }
  }

  @Test
  void theCommandRunAgainAfterAConflictIsValidatedAgainstTheNewerState() throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      b.link.deaf(true);
      a.controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "move", null);
      CommandRejectedException e =
          assertThrows(
              CommandRejectedException.class,
              () ->
                  b.controller()
                      .startMove(
                          BOB, APP, List.of("primary"), List.of("spare"), null, "other", null));
      assertTrue(e.conflict());
      assertTrue(e.getMessage().contains("already has a ramp"), e.getMessage());
      assertEquals(
          a.controller().state().service(APP).ramp().id(),
          b.controller().state().service(APP).ramp().id(),
          "b adopted a's move and did not start its own");
    }
  }

  @Test
  void aRequestIdRetriedOnAnotherNodeReturnsTheFirstResult() throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      b.link.deaf(true); // even without having heard it, b finds the id once it conflicts
      CommandResult first =
          a.controller().drain(ALICE, "primary/a", true, "maintenance", "retry-1");
      CommandResult again =
          b.controller().drain(ALICE, "primary/b", true, "maintenance", "retry-1");
      assertEquals(first, again);
      assertFalse(b.store.current().traffic().drained().contains("primary/b"));
      assertEquals(Set.of("primary/a"), b.controller().state().drained());
    }
  }

  @Test
  void aCutOffNodeRefusesCommandsAndKeepsItsAnswersButAppliesRollbackAndFreezeLocally()
      throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      a.controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "move", null);
      awaitSame(a, b);
      double before = shiftOn(b);
      assertTrue(before > 0);
      b.link.cut("connection refused");
      Snapshot served = b.store.current();
      ClusterUnreachableException refused =
          assertThrows(
              ClusterUnreachableException.class,
              () -> b.controller().drain(BOB, "spare", true, "x", null));
      assertTrue(refused.getMessage().contains("memory://test"), refused.getMessage());
      assertTrue(refused.getMessage().contains("connection refused"), refused.getMessage());
      assertEquals(served.version(), b.store.current().version(), "nothing changed on b");

      // The safety actions still apply here, audited as local.
      CommandResult rb = b.controller().rollback(BOB, APP, "bad move", "rb-1");
      assertTrue(rb.changed());
      assertEquals(0.0, shiftOn(b));
      assertEquals(true, b.lastAudit("rollback").details().get("local"));
      b.controller().freeze(BOB, null, true, "hold everything", null);
      assertTrue(b.store.current().traffic().frozen());
      assertEquals(2, b.controller().localActions().size());
      // Meanwhile the move goes on through a: the cut node's actions are not there yet.
      a.controller().drain(ALICE, "spare", true, "meanwhile", null);
      assertFalse(a.store.current().traffic().frozen());
      assertTrue(shiftOn(a) > 0);

      // From the local rollback on, b never answers with the move again, not even for a moment
      // while it catches up with what a did meanwhile.
      List<Double> shifts = new java.util.concurrent.CopyOnWriteArrayList<>();
      b.store.addListener(
          s ->
              shifts.add(
                  s.traffic().plan(APP).shifts().stream().mapToDouble(x -> x.percent()).sum()));
      b.link.restore();
      b.controller().catchUp();
      assertTrue(b.controller().localActions().isEmpty());
      assertTrue(shifts.stream().allMatch(x -> x == 0.0), "published on b: " + shifts);
      awaitSame(b, a);
      for (Node n : List.of(a, b)) {
        assertTrue(
            n.store.current().traffic().frozen(),
            n.name + ": the freeze of the cut wins; " + n.audit() + " " + n.controller().state());
        assertEquals(0.0, shiftOn(n), n.name + ": the rollback of the cut wins");
        assertTrue(
            n.store.current().traffic().drained().contains("spare"), n.name + " kept a's drain");
      }
      AuditEvent reconciled = a.lastAudit("rollback");
      assertEquals(true, reconciled.details().get("reconciled"));
      assertEquals("b", reconciled.details().get("origin"));
      // Applying them again (a retry after a crash) finds their request ids: nothing twice.
      long revision = a.controller().appliedRevision();
      b.controller().catchUp();
      assertEquals(revision, b.controller().appliedRevision());
    }
  }

  @Test
  void aCommandRightAfterTheCutEndedAsksTheStoreInsteadOfRefusingOnTheLastFailure()
      throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      b.link.cut("connection refused");
      assertThrows(
          ClusterUnreachableException.class,
          () -> b.controller().drain(BOB, "spare", true, "x", null));
      // etcd is back, but nothing has reached it since: the last call's failure still shows.
      b.link.restoreQuietly();
      assertFalse(b.link.connectivity().connected());
      CommandResult r = b.controller().drain(BOB, "spare", true, "after the cut", "req-after");
      assertTrue(r.changed(), "applied through the store, not refused on the old failure");
      await(
          "a publishes the drain made on b",
          () -> a.store.current().traffic().drained().contains("spare"));
    }
  }

  @Test
  void cutAgainWhileReconcilingKeepsTheRemainingSafetyActionsInEffectOnTheNode() throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      a.controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "move", null);
      awaitSame(a, b);
      b.link.cut("partition");
      b.controller().rollback(BOB, APP, "bad move", null);
      b.controller().freeze(BOB, null, true, "hold", null);
      a.controller().drain(ALICE, "spare", true, "meanwhile", null);
      b.link.cutAfter(1, "partition again"); // the rollback gets through, the freeze does not
      b.link.restore();
      assertThrows(
          ClusterUnreachableException.class,
          () -> b.controller().catchUp(),
          () -> b.audit() + " " + b.controller().localActions() + " " + b.link.commits());
      await("the rollback reached a", () -> shiftOn(a) == 0.0);
      assertFalse(a.store.current().traffic().frozen());
      // b shows the shared state it caught up with, the rollback, and its freeze still.
      assertTrue(b.store.current().traffic().drained().contains("spare"));
      assertEquals(0.0, shiftOn(b));
      assertTrue(b.store.current().traffic().frozen());
      assertEquals(1, b.controller().localActions().size());
      b.link.restore();
      b.controller().catchUp();
      await("a has the freeze", () -> a.store.current().traffic().frozen());
      assertTrue(b.controller().localActions().isEmpty());
    }
  }

  @Test
  void aSafetyActionMadeWhileCutOffSurvivesARestartAndIsAppliedOnReconnect() throws Exception {
    try (Node a = new Node("a")) {
      await("bootstrapped", () -> a.controller().appliedRevision() > 0);
      Node b = new Node("b");
      awaitSame(a, b);
      b.link.cut("deadline exceeded");
      b.controller().freeze(BOB, APP, true, "incident", null);
      b.close();
      // Restarted while still cut off: it serves its last persisted state, the freeze included.
      b.open();
      assertTrue(b.store.current().traffic().plan(APP).frozen());
      assertEquals(1, b.controller().localActions().size());
      assertFalse(a.store.current().traffic().plan(APP).frozen());
      b.link.restore();
      await("a has b's freeze", () -> a.store.current().traffic().plan(APP).frozen());
      assertTrue(b.controller().localActions().isEmpty());
      b.close();
    }
  }

  @Test
  void anEmptySharedStoreStartsFromTheFirstNodesStateAndLaterNodesAdoptIt() throws Exception {
    // a starts before the store is reachable and is frozen locally: its journal holds that state.
    try (Node a = new Node("a", "not reachable yet")) {
      a.controller().freeze(ALICE, null, true, "before the cluster", null);
      assertEquals(0, a.controller().appliedRevision());
      a.link.restore();
      await("bootstrapped", () -> a.controller().appliedRevision() > 0);
      assertTrue(
          a.audit().stream().anyMatch(e -> e.action().equals("cluster-bootstrap")), "audited");
      try (Node b = new Node("b")) {
        awaitSame(a, b);
        assertTrue(b.store.current().traffic().frozen(), "b adopted the cluster's state");
      }
    }
  }

  @Test
  void aCommandWhoseCommitAnswerIsLostIsAppliedEverywhereOnceTheStoreAnswers() throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      a.link.loseNextAnswer();
      assertThrows(
          ClusterUnreachableException.class,
          () -> a.controller().drain(ALICE, "spare", true, "x", "lost-1"));
      // The store has it: every node applies it, a included, once it catches up.
      await("b has it", () -> b.store.current().traffic().drained().contains("spare"));
      a.controller().catchUp();
      assertTrue(a.store.current().traffic().drained().contains("spare"));
      // The operator's retry finds its request id: applied once.
      CommandResult retry = a.controller().drain(ALICE, "spare", true, "x", "lost-1");
      assertTrue(retry.changed());
      assertEquals(1, a.audit().stream().filter(e -> e.action().equals("drain")).count());
    }
  }

  @Test
  void onlyTheLeaderCommitsControllerSteps() throws Exception {
    shared.leader("a");
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      a.controller().startDrill(ALICE, APP, List.of("standby"), 10, 60, "drill", null);
      awaitSame(a, b);
      assertNotNull(b.controller().state().service(APP).drill());
      b.ticker.advance(Duration.ofSeconds(61));
      b.controller().tick();
      assertNotNull(
          b.controller().state().service(APP).drill(), "a follower's step is not committed");
      a.ticker.advance(Duration.ofSeconds(61));
      a.controller().tick();
      assertEquals(null, a.controller().state().service(APP).drill());
      await(
          "b follows the leader's step", () -> b.controller().state().service(APP).drill() == null);
    }
  }

  @Test
  void aNodeBehindACompactedHistoryAdoptsTheNewestRecordAndSaysWhatItMissed() throws Exception {
    try (Node a = new Node("a");
        Node b = new Node("b")) {
      await("both caught up", () -> a.controller().appliedRevision() > 0);
      awaitSame(a, b);
      long from = b.controller().appliedRevision();
      b.link.cut("partition");
      a.controller().drain(ALICE, "spare", true, "one", null);
      a.controller().drain(ALICE, "standby/a", true, "two", null);
      shared.compact();
      b.link.restore();
      b.controller().catchUp();
      assertEquals(Set.of("spare", "standby/a"), b.store.current().traffic().drained());
      AuditEvent adopted = b.lastAudit("drain");
      assertEquals(
          (from + 1) + ".." + (a.controller().appliedRevision() - 1),
          adopted.details().get("missedRevisions"),
          from + " " + b.audit());
    }
  }

  private static double shiftOn(Node n) {
    return n.store.current().traffic().plan(APP).shifts().stream()
        .mapToDouble(s -> s.percent())
        .sum();
  }

  private static int indexOf(List<AuditEvent> events, String reason) {
    for (int i = 0; i < events.size(); i++) {
      if (reason.equals(events.get(i).reason())) {
        return i;
      }
    }
    throw new AssertionError("no audit line with reason " + reason + ": " + events);
  }

  private static long number(Object o) {
    return ((Number) o).longValue();
  }
}
