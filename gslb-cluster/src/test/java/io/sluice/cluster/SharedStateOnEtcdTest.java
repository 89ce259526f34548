package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.testing.ManualTicker;
import io.sluice.core.traffic.TrafficController;
import io.sluice.core.traffic.TrafficSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes' traffic systems sharing their operator state through a real three-member etcd: a
 * command through one reaches the other's answers and audit log, concurrent operators lose nothing,
 * and a lost etcd majority refuses commands (rollback and freeze apply locally) until it is back,
 * when the nodes resync.
 */
class SharedStateOnEtcdTest {
  static final String APP = "app.example.com.";
  private static final Actor ALICE = new Actor("alice", "operator");
  private static final Actor BOB = new Actor("bob", "operator");

  @TempDir Path dir;

  /** One node: its snapshot store, state directory, etcd client and traffic system. */
  static final class Node implements AutoCloseable {
    final String name;
    final SnapshotStore store;
    final Client client;
    final EtcdStateLog log;
    final TrafficSystem system;
    final ManualTicker ticker = new ManualTicker();

    Node(String name, EtcdCluster etcd, Path stateDir) throws Exception {
      this.name = name;
      SluiceConfig config = config(name, etcd.endpoints());
      this.store = new SnapshotStore(Snapshot.initial(config));
      this.client = EtcdClients.create(config);
      this.log = EtcdStateLog.open(client, config);
      this.system =
          TrafficSystem.openManualClustered(
              store, stateDir, ticker, new GslbMetrics() {}, g -> 0.0, log);
    }

    TrafficController controller() {
      return system.controller();
    }

    List<AuditEvent> audit() {
      return controller().audit(new AuditQuery(null, null, null, null, 0, 1000));
    }

    Map<String, Integer> weights() {
      return store.current().traffic().plan(APP).weights();
    }

    @Override
    public void close() throws Exception {
      system.close();
      log.close();
      client.close();
    }
  }

  static SluiceConfig config(String node, List<String> endpoints) throws Exception {
    String yaml =
        """
        pools:
          primary:
            endpoints:
              - { name: a, address: 192.0.2.1 }
              - { name: b, address: 192.0.2.2 }
          standby:
            endpoints:
              - { name: a, address: 198.51.100.1 }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            services:
              - name: app
                ttl: 60
                pools: [primary, standby]
                traffic: { steps: [10, 30, 60, 100], window: 30s, shiftTtl: 10 }
        cluster:
          node: %s
          etcd: { endpoints: [%s], prefix: /sluice/test, timeout: 5s }
        """
            .formatted(node, String.join(", ", endpoints));
    return ConfigLoader.parse(yaml, "test.yaml", Path.of("."));
  }

  static void await(String what, Duration bound, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + bound.toSeconds() + " s: " + what);
      }
      Thread.sleep(5);
    }
  }

  private static void awaitJoined(Node a, Node b) throws InterruptedException {
    await(
        "both nodes at the same shared revision",
        Duration.ofSeconds(30),
        () ->
            a.controller().appliedRevision() > 0
                && a.controller().appliedRevision() == b.controller().appliedRevision());
  }

  @Test
  void drainWeightFreezeAndRollbackThroughOneNodeAreAdoptedByTheOther() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Node a = new Node("a", etcd, dir.resolve("a"));
        Node b = new Node("b", etcd, dir.resolve("b"))) {
      awaitJoined(a, b);
      List<Long> millis = new ArrayList<>();

      long t0 = System.nanoTime();
      a.controller().drain(ALICE, "primary/a", true, "maintenance", null);
      await(
          "b drains",
          Duration.ofSeconds(10),
          () -> b.store.current().traffic().drained().contains("primary/a"));
      millis.add((System.nanoTime() - t0) / 1_000_000);

      t0 = System.nanoTime();
      b.controller().setWeights(BOB, APP, Map.of("standby", 4), false, "more standby", null);
      await("a has the weight", Duration.ofSeconds(10), () -> a.weights().get("standby") != null);
      millis.add((System.nanoTime() - t0) / 1_000_000);

      t0 = System.nanoTime();
      a.controller().freeze(ALICE, APP, true, "incident", null);
      await(
          "b frozen", Duration.ofSeconds(10), () -> b.store.current().traffic().plan(APP).frozen());
      millis.add((System.nanoTime() - t0) / 1_000_000);

      a.controller().freeze(ALICE, APP, false, "over", null);
      a.controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "move", null);
      await(
          "b shifts",
          Duration.ofSeconds(10),
          () -> !b.store.current().traffic().plan(APP).shifts().isEmpty());
      t0 = System.nanoTime();
      b.controller().rollback(BOB, APP, "bad move", null);
      await(
          "a rolled back",
          Duration.ofSeconds(10),
          () -> a.store.current().traffic().plan(APP).shifts().isEmpty());
      millis.add((System.nanoTime() - t0) / 1_000_000);

      awaitJoined(a, b);
      // Each node's audit log holds the whole cluster's commands, naming where each was made.
      for (Node n : List.of(a, b)) {
        List<AuditEvent> events = n.audit();
        for (String action : List.of("drain", "set-weights", "freeze", "move-start", "rollback")) {
          AuditEvent e =
              events.stream().filter(x -> x.action().equals(action)).findFirst().orElse(null);
          assertNotNull(e, n.name + " has no " + action + " line: " + events);
          assertTrue(List.of("a", "b").contains(e.details().get("origin")), e.toString());
        }
      }
      assertEquals(a.controller().switches(null), b.controller().switches(null));
      System.out.println("command on one node to the other node's published state, ms: " + millis);
    }
  }

  @Test
  void twoOperatorsChangingTheSameServiceAtOnceLoseNothing() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Node a = new Node("a", etcd, dir.resolve("a"));
        Node b = new Node("b", etcd, dir.resolve("b"))) {
      awaitJoined(a, b);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        int rounds = 10;
        for (int i = 1; i <= rounds; i++) {
          int w = i;
          CountDownLatch go = new CountDownLatch(1);
          Future<?> fa =
              pool.submit(
                  () -> {
                    go.await();
                    return a.controller()
                        .setWeights(ALICE, APP, Map.of("primary", w), false, "a" + w, null);
                  });
          Future<?> fb =
              pool.submit(
                  () -> {
                    go.await();
                    return b.controller()
                        .setWeights(BOB, APP, Map.of("standby", w), false, "b" + w, null);
                  });
          go.countDown();
          fa.get();
          fb.get();
        }
        awaitJoined(a, b);
        for (Node n : List.of(a, b)) {
          assertEquals(
              rounds,
              n.weights().get("primary"),
              n.name
                  + ": "
                  + n.weights()
                  + " a@"
                  + a.controller().appliedRevision()
                  + " b@"
                  + b.controller().appliedRevision()
                  + " "
                  + n.audit().subList(0, 4));
          assertEquals(
              rounds,
              n.weights().get("standby"),
              n.name
                  + ": "
                  + n.weights()
                  + " a@"
                  + a.controller().appliedRevision()
                  + " b@"
                  + b.controller().appliedRevision()
                  + " "
                  + n.audit().subList(0, 4));
          long changes = n.audit().stream().filter(e -> e.action().equals("set-weights")).count();
          assertEquals(2L * rounds, changes, n.name + " audits every change of both operators");
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aLostMajorityRefusesCommandsKeepsTheStateAndAppliesSafetyActionsLocallyUntilItIsBack()
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Node a = new Node("a", etcd, dir.resolve("a"));
        Node b = new Node("b", etcd, dir.resolve("b"))) {
      awaitJoined(a, b);
      a.controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "move", null);
      awaitJoined(a, b);
      etcd.kill(0);
      etcd.kill(1);
      await("a sees etcd gone", Duration.ofSeconds(30), () -> !a.log.connectivity().connected());
      Snapshot before = a.store.current();
      ClusterUnreachableException refused =
          assertThrows(
              ClusterUnreachableException.class,
              () -> a.controller().drain(ALICE, "standby", true, "x", null));
      assertTrue(refused.getMessage().contains(etcd.endpoints().get(2)), refused.getMessage());
      assertEquals(before.version(), a.store.current().version(), "no answer changed");

      a.controller().rollback(ALICE, APP, "bad move, etcd down", null);
      assertTrue(a.store.current().traffic().plan(APP).shifts().isEmpty());
      AuditEvent local =
          a.audit().stream().filter(e -> e.action().equals("rollback")).findFirst().orElseThrow();
      assertEquals(true, local.details().get("local"));
      assertFalse(b.store.current().traffic().plan(APP).shifts().isEmpty(), "b kept its state");

      etcd.restart(0);
      etcd.restart(1);
      await(
          "the rollback of the cut reaches b",
          Duration.ofSeconds(60),
          () -> b.store.current().traffic().plan(APP).shifts().isEmpty());
      await(
          "a owes nothing", Duration.ofSeconds(30), () -> a.controller().localActions().isEmpty());
      awaitJoined(a, b);
      AuditEvent reconciled =
          b.audit().stream().filter(e -> e.action().equals("rollback")).findFirst().orElseThrow();
      assertEquals(true, reconciled.details().get("reconciled"));
      // Commands work again.
      a.controller().drain(ALICE, "standby", true, "after", null);
      await(
          "b drains",
          Duration.ofSeconds(10),
          () -> b.store.current().traffic().drained().contains("standby"));
    }
  }

  @Test
  void aNodeRestartedBehindACompactedHistoryAdoptsTheNewestRecordAndSaysWhatItMissed()
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Node a = new Node("a", etcd, dir.resolve("a"))) {
      Node b = new Node("b", etcd, dir.resolve("b"));
      awaitJoined(a, b);
      long stoppedAt = b.controller().appliedRevision();
      b.close();
      a.controller().drain(ALICE, "standby", true, "one", null);
      a.controller().drain(ALICE, "primary/b", true, "two", null);
      long newest = a.controller().appliedRevision();
      a.client.getKVClient().compact(newest).get(10, TimeUnit.SECONDS);
      try (Node again = new Node("b", etcd, dir.resolve("b"))) {
        awaitJoined(a, again);
        assertEquals(Set.of("standby", "primary/b"), again.store.current().traffic().drained());
        AuditEvent adopted =
            again.audit().stream()
                .filter(e -> e.action().equals("drain"))
                .findFirst()
                .orElseThrow();
        assertEquals("two", adopted.reason());
        assertEquals(
            (stoppedAt + 1) + ".." + (newest - 1),
            adopted.details().get("missedRevisions"),
            adopted.toString());
      }
    }
  }

  @Test
  void onlyTheNodeHoldingTheLeaderKeyCommitsControllerSteps() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Node a = new Node("a", etcd, dir.resolve("a"));
        Node b = new Node("b", etcd, dir.resolve("b"))) {
      awaitJoined(a, b);
      a.client
          .getKVClient()
          .put(EtcdClients.bytes(EtcdStateLog.LEADER_KEY), EtcdClients.bytes("a"))
          .get(10, TimeUnit.SECONDS);
      b.controller().startDrill(BOB, APP, List.of("standby"), 10, 60, "drill", null);
      awaitJoined(a, b);
      b.ticker.advance(Duration.ofSeconds(61));
      b.controller().tick();
      assertNotNull(b.controller().state().service(APP).drill(), "b does not lead: no step");
      a.ticker.advance(Duration.ofSeconds(61));
      a.controller().tick();
      assertEquals(null, a.controller().state().service(APP).drill(), "a ended the drill");
      await(
          "b follows the leader's step",
          Duration.ofSeconds(10),
          () -> b.controller().state().service(APP).drill() == null);
      // The adopted state is in effect before its audit line is written: wait for the line too.
      await(
          "b audits the leader's step",
          Duration.ofSeconds(10),
          () -> b.audit().stream().anyMatch(e -> e.actor().equals("controller")));
      AuditEvent ended =
          b.audit().stream().filter(e -> e.actor().equals("controller")).findFirst().orElseThrow();
      assertEquals("a", ended.details().get("origin"));
    }
  }
}
