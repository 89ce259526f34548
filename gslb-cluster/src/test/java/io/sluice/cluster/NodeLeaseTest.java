package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.PutOption;
import io.sluice.cluster.testing.EtcdCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NodeLeaseTest {

  @Test
  void aLeaseThatExpiredIsGrantedAgainAndTheListenersPutTheirKeysAgain() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client client = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/t"));
        Client other = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/t"));
        NodeLease lease = NodeLease.grant(client, Duration.ofSeconds(2), Duration.ofSeconds(5))) {
      BlockingQueue<String> told = putsAgain(lease, client);
      long first = lease.id();
      put(client, first);
      assertTrue(lease.alive());
      // etcd lets the lease go (as after a cut longer than its TTL): the keys go with it.
      other.getLeaseClient().revoke(first).get(10, TimeUnit.SECONDS);
      assertTrue(keys(other).isEmpty());

      assertEquals("lost " + first, told.poll(20, TimeUnit.SECONDS));
      String granted = told.poll(20, TimeUnit.SECONDS);
      long second = lease.id();
      assertNotEquals(first, second);
      assertEquals("granted " + second, granted);
      List<KeyValue> kvs = keys(other);
      assertEquals(1, kvs.size());
      assertEquals(second, kvs.get(0).getLease());
      assertTrue(lease.alive());
    }
  }

  @Test
  void anAbandonedLeaseIsNotAliveAndEtcdDropsItsKeysWithinItsTtl() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client client = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/t"))) {
      NodeLease lease = NodeLease.grant(client, Duration.ofSeconds(2), Duration.ofSeconds(5));
      put(client, lease.id());
      lease.abandon();
      assertFalse(lease.alive());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!keys(client).isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertTrue(keys(client).isEmpty());
    }
  }

  @Test
  void afterACutLongerThanTheTtlTheLeaseIsUsableAgainAndItsKeysArePutAgain() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client client = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/t"));
        NodeLease lease = NodeLease.grant(client, Duration.ofSeconds(2), Duration.ofSeconds(1))) {
      BlockingQueue<String> told = putsAgain(lease, client);
      put(client, lease.id());
      etcd.kill(0);
      assertEquals("lost " + lease.id(), told.poll(20, TimeUnit.SECONDS));
      assertFalse(lease.alive(), "counted lost before etcd could expire it");
      Thread.sleep(2500);
      etcd.restart(0);
      String granted = told.poll(30, TimeUnit.SECONDS);
      assertEquals("granted " + lease.id(), granted);
      assertTrue(lease.alive());
      assertEquals(lease.id(), keys(client).get(0).getLease());
    }
  }

  @Test
  void aNodeStartedWhileEtcdIsDownGetsItsLeaseOnceEtcdAnswers() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client client = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/t"))) {
      etcd.kill(0);
      try (NodeLease lease =
          NodeLease.start(client, Duration.ofSeconds(2), Duration.ofSeconds(1))) {
        BlockingQueue<Long> granted = new ArrayBlockingQueue<>(10);
        lease.addListener(granted::add);
        Thread.sleep(1500);
        assertFalse(lease.alive());
        assertEquals(0, lease.id());
        assertEquals(0, lease.lastKeepAliveMillis());

        etcd.restart(0);
        // The client reconnects with gRPC's growing back-off (at most two minutes).
        Long id = granted.poll(150, TimeUnit.SECONDS);
        assertNotEquals(null, id);
        assertEquals(lease.id(), id);
        assertTrue(lease.alive());
        put(client, id);
        assertEquals(id, keys(client).get(0).getLease());
      }
    }
  }

  /** A listener that puts the key again on every grant; what it was told, in order. */
  private static BlockingQueue<String> putsAgain(NodeLease lease, Client client) {
    BlockingQueue<String> told = new ArrayBlockingQueue<>(10);
    lease.addListener(
        new NodeLease.Listener() {
          @Override
          public void granted(long id) {
            put(client, id);
            told.add("granted " + id);
          }

          @Override
          public void lost(long id) {
            told.add("lost " + id);
          }
        });
    return told;
  }

  private static void put(Client client, long lease) {
    client
        .getKVClient()
        .put(
            EtcdClients.bytes("nodes/n1"),
            EtcdClients.bytes("{}"),
            PutOption.builder().withLeaseId(lease).build())
        .join();
  }

  private static List<KeyValue> keys(Client client) throws Exception {
    return client
        .getKVClient()
        .get(EtcdClients.bytes("nodes/n1"))
        .get(10, TimeUnit.SECONDS)
        .getKvs();
  }
}
