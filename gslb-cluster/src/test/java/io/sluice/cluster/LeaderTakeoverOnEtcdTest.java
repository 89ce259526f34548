package io.sluice.cluster;

import static io.sluice.cluster.SharedStateOnEtcdTest.APP;
import static io.sluice.cluster.SharedStateOnEtcdTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.testing.ManualTicker;
import io.sluice.core.traffic.TrafficController;
import io.sluice.core.traffic.TrafficSystem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes sharing their state through a real three-member etcd, each in the leader election: only
 * the leader steps a ramp; when its lease is lost mid-ramp (as in a crash) the other node takes
 * over and continues at the next step, from the step and its start time in the shared state, never
 * repeating one.
 */
class LeaderTakeoverOnEtcdTest {
  private static final Actor ALICE = new Actor("alice", "operator");
  private static final List<String> ENDPOINTS = List.of("primary/a", "primary/b", "standby/a");

  @TempDir Path dir;

  /** One node: traffic system on the shared state, its lease and its part in the election. */
  static final class Node implements AutoCloseable {
    final String name;
    final SnapshotStore store;
    final Client client;
    final EtcdStateLog log;
    final NodeLease lease;
    final EtcdLeadership leadership;
    final TrafficSystem system;
    final ManualTicker ticker = new ManualTicker();

    Node(String name, EtcdCluster etcd, Path stateDir) throws Exception {
      this.name = name;
      SluiceConfig config = SharedStateOnEtcdTest.config(name, etcd.endpoints());
      this.store = new SnapshotStore(Snapshot.initial(config));
      this.client = EtcdClients.create(config);
      this.log = EtcdStateLog.open(client, config);
      // 4 s: a 2 s lease lapsed on a loaded machine and took the leadership away mid-test.
      this.lease = NodeLease.grant(client, Duration.ofSeconds(4), Duration.ofSeconds(5));
      AtomicReference<TrafficController> controller = new AtomicReference<>();
      this.leadership =
          EtcdLeadership.start(
              client, lease, name, () -> controller.get().catchUp(), Duration.ofSeconds(5));
      this.system =
          TrafficSystem.openManualClustered(
              store, stateDir, ticker, new GslbMetrics() {}, g -> 0.0, log, leadership);
      controller.set(system.controller());
    }

    TrafficController controller() {
      return system.controller();
    }

    double movePercent() {
      return store.current().traffic().plan(APP).shifts().stream()
          .filter(s -> s.id().startsWith("move"))
          .mapToDouble(Shift::percent)
          .findFirst()
          .orElse(0);
    }

    /** Every endpoint up, with {@code n} more check results (what the probes would publish). */
    void probe(long n) {
      store.update(
          s -> {
            Map<String, EndpointHealth> m = new HashMap<>();
            for (String key : ENDPOINTS) {
              EndpointHealth h = s.health().get(key);
              m.put(
                  key,
                  new EndpointHealth(
                      Verdict.UP,
                      ticker.currentTimeMillis(),
                      "test",
                      false,
                      1,
                      2,
                      0,
                      h.results() + n,
                      h.failures()));
            }
            return s.withHealth(s.health().withAll(m));
          });
    }

    /** The clock moves on by {@code seconds} with one result a second, then a controller tick. */
    void tickAfter(long seconds) {
      ticker.advance(Duration.ofSeconds(seconds));
      probe(seconds);
      controller().tick();
    }

    /** Loses etcd as a crash would: the lease is left to expire, nothing is handed over. */
    void crash() {
      lease.abandon();
    }

    @Override
    public void close() throws Exception {
      leadership.close();
      system.close();
      log.close();
      lease.close();
      client.close();
    }
  }

  /** Waits until one of {@code a} and {@code b} leads and both applied the same revision. */
  static Node leaderOnceCaughtUp(Node a, Node b) throws InterruptedException {
    await(
        "one leader, both caught up",
        Duration.ofSeconds(30),
        () ->
            a.leadership.leads() != b.leadership.leads()
                && a.controller().appliedRevision() > 0
                && a.controller().appliedRevision() == b.controller().appliedRevision());
    return a.leadership.leads() ? a : b;
  }

  @Test
  void theLeaderLostMidRampIsSucceededAtTheNextStepNeverARepeatedOne() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Node a = new Node("ns1", etcd, dir.resolve("ns1"));
        Node b = new Node("ns2", etcd, dir.resolve("ns2"))) {
      Node leader = leaderOnceCaughtUp(a, b);
      Node follower = leader == a ? b : a;
      leader.probe(5);
      follower.probe(5);

      // An operator starts a move through the follower: commands run on every node.
      follower
          .controller()
          .startMove(ALICE, APP, List.of("primary"), List.of("standby"), null, "move", null);
      await("both at 10%", Duration.ofSeconds(10), () -> leader.movePercent() == 10.0);
      assertEquals(10.0, follower.movePercent());

      // Past the window only the leader steps; the follower, ticking too, adopts its step.
      follower.tickAfter(31);
      assertEquals(10.0, follower.movePercent(), "a follower never steps");
      leader.tickAfter(31);
      assertEquals(30.0, leader.movePercent());
      await(
          "the follower adopts 30%", Duration.ofSeconds(10), () -> follower.movePercent() == 30.0);

      // The leader is lost mid-ramp; the follower counts evidence for the step meanwhile.
      long lost = System.nanoTime();
      leader.crash();
      assertFalse(leader.leadership.leads());
      follower.tickAfter(1);
      await("the follower takes over", Duration.ofSeconds(30), () -> follower.leadership.leads());
      System.out.println(
          "takeover after the leader's lease was lost: "
              + Duration.ofNanos(System.nanoTime() - lost).toMillis()
              + " ms (lease TTL 2 s)");
      assertEquals(30.0, follower.movePercent(), "taking over changes nothing by itself");

      // The 30% step began 31 s ago on the shared clock: the new leader's first due tick takes
      // the next step, 60%, once, and the step after waits for its own window.
      follower.tickAfter(30);
      assertEquals(60.0, follower.movePercent());
      follower.tickAfter(1);
      assertEquals(60.0, follower.movePercent());
      SwitchRecord rec = follower.controller().switches(APP).get(0);
      assertEquals(
          List.of(10.0, 30.0, 60.0),
          rec.steps().stream()
              .filter(st -> st.get("event").equals("step"))
              .map(st -> (Double) st.get("percent"))
              .toList());
      List<AuditEvent> steps =
          follower.controller().audit(new AuditQuery(null, null, null, null, 0, 1000)).stream()
              .filter(e -> e.action().equals("ramp-step"))
              .toList();
      assertEquals(2, steps.size(), steps.toString());
      assertTrue(steps.stream().allMatch(e -> e.actor().equals(Actor.CONTROLLER.name())));
    }
  }
}
