package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.sluice.cluster.testing.EtcdCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class EtcdLeadershipTest {
  static final Duration TTL = Duration.ofSeconds(5);
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** One node of the election: its own client, lease and leadership. */
  static final class Node implements AutoCloseable {
    final String name;
    final Client client;
    final NodeLease lease;
    final EtcdLeadership leadership;
    final List<String> catchUps = new CopyOnWriteArrayList<>();

    Node(String name, List<String> endpoints) throws Exception {
      this.name = name;
      this.client = EtcdClients.create(EtcdClientsTest.config(endpoints, "/sluice"));
      this.lease = NodeLease.grant(client, TTL, TIMEOUT);
      AtomicReference<EtcdLeadership> self = new AtomicReference<>();
      this.leadership =
          EtcdLeadership.start(
              client,
              lease,
              name,
              () -> {
                // The shared state is read before the first automatic step: not leading yet.
                EtcdLeadership l = self.get();
                catchUps.add(l != null && l.leads() ? "while leading" : "before leading");
              },
              TIMEOUT);
      self.set(leadership);
    }

    /** Dies as a crash would: no revoke, no resignation; etcd expires the lease. */
    void crash() {
      lease.abandon();
      client.close();
    }

    @Override
    public void close() {
      leadership.close();
      lease.close();
      client.close();
    }
  }

  static void await(BooleanSupplier c, Duration bound, String what) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + bound + ": " + what);
      }
      Thread.sleep(20);
    }
  }

  static List<Node> leaders(List<Node> nodes) {
    return nodes.stream().filter(n -> n.leadership.leads()).toList();
  }

  @Test
  void exactlyOneOfThreeLeadsAndAnotherTakesOverWhenItsLeaseExpires() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3)) {
      List<Node> nodes = new ArrayList<>();
      try {
        for (String n : List.of("ns1", "ns2", "ns3")) {
          nodes.add(new Node(n, etcd.endpoints()));
        }
        await(() -> leaders(nodes).size() == 1, Duration.ofSeconds(20), "one leader");
        Node first = leaders(nodes).get(0);
        assertEquals(List.of("before leading"), first.catchUps);
        for (Node n : nodes) {
          await(
              () -> n.leadership.leader().orElse("").equals(first.name),
              Duration.ofSeconds(10),
              n.name + " sees " + first.name + " lead");
        }
        // Stays one while nothing happens.
        for (int i = 0; i < 20; i++) {
          assertEquals(List.of(first), leaders(nodes));
          Thread.sleep(50);
        }

        long killed = System.nanoTime();
        first.crash();
        assertFalse(first.leadership.leads(), "a node without its lease stops leading at once");
        List<Node> rest = nodes.stream().filter(n -> n != first).toList();
        await(
            () -> leaders(rest).size() == 1,
            TTL.plus(Duration.ofSeconds(15)),
            "another leads within the lease TTL");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        System.out.println(
            "leader takeover after a crash took " + tookMillis + " ms (TTL " + TTL + ")");
        Node second = leaders(rest).get(0);
        assertNotEquals(first, second);
        assertEquals(List.of("before leading"), second.catchUps);
        for (int i = 0; i < 20; i++) {
          assertEquals(List.of(second), leaders(rest));
          Thread.sleep(50);
        }
        nodes.remove(first);

        // An orderly stop hands over at once: the key is deleted, not left to expire.
        second.close();
        nodes.remove(second);
        await(() -> leaders(nodes).size() == 1, Duration.ofSeconds(10), "the last node leads");
        assertTrue(nodes.get(0).leadership.leads());
      } finally {
        nodes.forEach(Node::close);
      }
    }
  }

  @Test
  void whenTheLeaderKeyDisappearsTheNodesCampaignAgainAndTheWinnerCatchesUpFirst()
      throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Node a = new Node("ns1", etcd.endpoints());
        Node b = new Node("ns2", etcd.endpoints())) {
      List<Node> nodes = List.of(a, b);
      await(() -> leaders(nodes).size() == 1, Duration.ofSeconds(20), "one leader");
      int catchUps = a.catchUps.size() + b.catchUps.size();
      a.client
          .getKVClient()
          .delete(EtcdClients.bytes(EtcdLeadership.KEY))
          .get(10, TimeUnit.SECONDS);
      await(
          () -> leaders(nodes).size() == 1 && a.catchUps.size() + b.catchUps.size() == catchUps + 1,
          Duration.ofSeconds(20),
          "a new term, after a catch-up");
      for (Node n : nodes) {
        assertTrue(n.catchUps.stream().allMatch("before leading"::equals), n.catchUps.toString());
      }
    }
  }

  @Test
  void aNodeThatCannotCatchUpDoesNotLeadAndLeavesTheKeyToOthers() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client client = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice"));
        NodeLease lease = NodeLease.grant(client, TTL, TIMEOUT);
        EtcdLeadership broken =
            EtcdLeadership.start(
                client,
                lease,
                "ns1",
                () -> {
                  throw new IllegalStateException("etcd unreadable");
                },
                TIMEOUT)) {
      Thread.sleep(500);
      assertFalse(broken.leads());
      try (Node other = new Node("ns2", etcd.endpoints())) {
        await(() -> other.leadership.leads(), Duration.ofSeconds(20), "ns2 leads");
        assertFalse(broken.leads());
      }
    }
  }
}
