package io.sluice.cluster;

import static io.sluice.cluster.EtcdLeadershipTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.spi.ClusterMembers.Member;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class EtcdClusterMembersTest {
  static final Duration TTL = Duration.ofSeconds(2);
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** A node's registry entry and its view of the others. */
  static final class Node implements AutoCloseable {
    final Client client;
    final NodeLease lease;
    final NodeRegistry registry;
    final EtcdClusterMembers members;
    final AtomicLong applied = new AtomicLong();

    Node(String name, String region, List<String> endpoints) throws Exception {
      client = EtcdClients.create(EtcdClientsTest.config(endpoints, "/sluice"));
      lease = NodeLease.grant(client, TTL, TIMEOUT);
      registry =
          NodeRegistry.start(
              client,
              lease,
              new NodeRegistry.Entry(
                  name, region, "192.0.2.1:53", "http://192.0.2.1:8053", 0, 1000, 0),
              applied::get,
              TIMEOUT);
      members =
          EtcdClusterMembers.start(
              client, lease, name, () -> Optional.of("ns1"), applied::get, TIMEOUT);
    }

    Optional<Member> member(String name) {
      return members.members().stream().filter(m -> m.node().equals(name)).findFirst();
    }

    /** Dies as a crash would: its lease is left to expire. */
    void crash() {
      registry.close();
      members.close();
      lease.abandon();
      client.close();
    }

    @Override
    public void close() {
      registry.close();
      members.close();
      lease.close();
      client.close();
    }
  }

  @Test
  void everyNodeListsTheOthersWithTheirRevisionAndADeadOneIsDroppedAfterItsTtl() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Node ns1 = new Node("ns1", "eu", etcd.endpoints())) {
      Node ns2 = new Node("ns2", "us", etcd.endpoints());
      try {
        await(
            () -> ns1.members.members().size() == 2 && ns2.members.members().size() == 2,
            Duration.ofSeconds(20),
            "both nodes listed on both");
        Member two = ns1.member("ns2").orElseThrow();
        assertEquals("us", two.region());
        assertEquals("192.0.2.1:53", two.dns());
        assertEquals("http://192.0.2.1:8053", two.admin());
        assertTrue(two.live());
        assertFalse(two.leader());
        assertTrue(ns2.member("ns1").orElseThrow().leader());
        assertEquals(Optional.of("ns1"), ns1.members.local().map(Member::node));

        // The shared state moves on; ns2 applies it and says so in its entry.
        long rev =
            ns1.client
                .getKVClient()
                .put(EtcdClients.bytes("state"), EtcdClients.bytes("{}"))
                .get(10, TimeUnit.SECONDS)
                .getHeader()
                .getRevision();
        await(
            () -> ns1.members.sharedRevision() == rev,
            Duration.ofSeconds(10),
            "the shared revision is seen");
        ns2.applied.set(rev);
        await(
            () -> ns1.member("ns2").orElseThrow().appliedRevision() == rev,
            Duration.ofSeconds(10),
            "ns2's applied revision reaches ns1");

        ns2.crash();
        await(
            () -> ns1.members.connected() && !ns1.member("ns2").orElseThrow().live(),
            TTL.plus(Duration.ofSeconds(10)),
            "ns2 dropped after its lease TTL");
        assertTrue(
            ns1.client
                .getKVClient()
                .get(NodeRegistry.key("ns2"))
                .get(10, TimeUnit.SECONDS)
                .getKvs()
                .isEmpty());
        assertTrue(ns1.member("ns1").orElseThrow().live());
      } finally {
        ns2.close();
      }
    }
  }
}
