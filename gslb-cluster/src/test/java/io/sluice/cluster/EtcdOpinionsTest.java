package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.health.Opinion;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.core.spi.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Opinions on a real etcd: keys, JSON, the node's lease, the watch-backed view of another node. */
class EtcdOpinionsTest {
  // Generous for a loaded machine: a 2 s request timeout failed there once; the lease expiry the
  // test waits for is bounded by waitFor's 30 s, not by these.
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final Duration LEASE = Duration.ofSeconds(4);

  /** What a node hears, as the probe engine would. */
  static final class Heard implements OpinionExchange.Listener {
    final Map<String, Opinion> opinions = new ConcurrentHashMap<>();
    volatile OpinionExchange.Connection connection;

    @Override
    public void replaced(Collection<Opinion> all) {
      opinions.clear();
      all.forEach(this::changed);
    }

    @Override
    public void changed(Opinion o) {
      opinions.put(o.id(), o);
    }

    @Override
    public void removed(String endpoint, String vantage) {
      opinions.remove(endpoint + "/" + vantage);
    }

    @Override
    public void connectionChanged(OpinionExchange.Connection c) {
      connection = c;
    }
  }

  private static void waitFor(String what, BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  void opinionsLiveOnTheNodesLeaseAndAnotherNodeHearsThemComeAndGo() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client raw = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
        Client clientB =
            EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/t"))) {
      Client clientA = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/t"));
      NodeLease leaseA = NodeLease.grant(clientA, LEASE, TIMEOUT);
      NodeLease leaseB = NodeLease.grant(clientB, LEASE, TIMEOUT);
      Heard heardA = new Heard();
      Heard heardB = new Heard();
      EtcdOpinions a = EtcdOpinions.create(clientA, "node-a", leaseA::id, TIMEOUT, Ticker.SYSTEM);
      try (EtcdOpinions b =
          EtcdOpinions.create(clientB, "node-b", leaseB::id, TIMEOUT, Ticker.SYSTEM)) {
        a.start(heardA);
        b.start(heardB);
        waitFor(
            "both connected",
            () ->
                heardA.connection != null
                    && heardA.connection.connected()
                    && heardB.connection != null
                    && heardB.connection.connected());

        Opinion up = new Opinion("p1/a", "node-a", "node-a", Verdict.UP, 3, true, "eu", 2.5, 1000);
        Opinion agent =
            new Opinion("p1/a", "ams", "node-a", Verdict.DOWN, 3, true, null, Double.NaN, 2000);
        a.publish(up);
        a.publish(agent);
        waitFor("node-b hears both", () -> heardB.opinions.size() == 2);
        assertEquals(up, heardB.opinions.get("p1/a/node-a"));
        assertEquals(agent, heardB.opinions.get("p1/a/ams"));
        assertEquals(Map.of("p1/a/node-a", up, "p1/a/ams", agent), b.view());

        // Under the cluster prefix, as JSON, on node-a's lease.
        List<KeyValue> kvs =
            raw.getKVClient()
                .get(EtcdClients.bytes("/sluice/t/health/p1/a/node-a"))
                .get(10, TimeUnit.SECONDS)
                .getKvs();
        assertEquals(leaseA.id(), kvs.get(0).getLease());
        JsonNode json = new ObjectMapper().readTree(kvs.get(0).getValue().getBytes());
        assertEquals("node-a", json.get("vantage").asText());
        assertEquals("node-a", json.get("via").asText());
        assertEquals("UP", json.get("opinion").asText());
        assertEquals(3, json.get("streak").asInt());
        assertTrue(json.get("pathOk").asBoolean());
        assertEquals("eu", json.get("region").asText());
        assertEquals(2.5, json.get("rttMillis").asDouble());
        assertEquals(1000, json.get("sinceMillis").asLong());

        // A withdrawal deletes the key.
        a.withdraw("p1/a", "ams");
        waitFor("node-b hears the withdrawal", () -> !heardB.opinions.containsKey("p1/a/ams"));
        waitFor("two puts and one delete counted", () -> a.keyWrites() == 3);

        // node-a dies without revoking its lease: its opinion expires with the lease.
        a.close();
        clientA.close();
        waitFor("node-a's opinion expired", () -> heardB.opinions.isEmpty());
        assertTrue(b.view().isEmpty());
      }
    }
  }
}
