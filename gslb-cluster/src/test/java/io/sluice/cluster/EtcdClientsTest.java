package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.SluiceConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EtcdClientsTest {

  static SluiceConfig config(List<String> endpoints, String prefix) {
    ClusterConfig cluster =
        new ClusterConfig(
            "n1",
            null,
            new ClusterConfig.EtcdConfig(endpoints, prefix, null, null, null, null),
            null,
            null,
            null);
    return SluiceConfig.builder().cluster(cluster).build();
  }

  @Test
  void keysLiveUnderTheClusterPrefixAndSurviveTheLossOfOneMember() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Client a = EtcdClients.create(config(etcd.endpoints(), "/sluice/a"));
        Client b = EtcdClients.create(config(etcd.endpoints(), "/sluice/b"));
        Client raw = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build()) {
      a.getKVClient()
          .put(EtcdClients.bytes("state"), EtcdClients.bytes("A"))
          .get(10, TimeUnit.SECONDS);
      b.getKVClient()
          .put(EtcdClients.bytes("state"), EtcdClients.bytes("B"))
          .get(10, TimeUnit.SECONDS);
      List<KeyValue> kvs =
          raw.getKVClient()
              .get(EtcdClients.bytes("/sluice/a/state"))
              .get(10, TimeUnit.SECONDS)
              .getKvs();
      assertEquals("A", kvs.get(0).getValue().toString(StandardCharsets.UTF_8));
      etcd.kill(0);
      // Losing a member may cost an election: a request in it fails and is retried, as a node does.
      putWithRetry(a, "state", "A2");
      ByteSequence v =
          b.getKVClient()
              .get(EtcdClients.bytes("state"))
              .get(20, TimeUnit.SECONDS)
              .getKvs()
              .get(0)
              .getValue();
      assertEquals("B", v.toString(StandardCharsets.UTF_8));
      assertTrue(etcd.members().get(1).running());
    }
  }

  private static void putWithRetry(Client c, String key, String value) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        c.getKVClient()
            .put(EtcdClients.bytes(key), EtcdClients.bytes(value))
            .get(20, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        if (attempt == 10) {
          throw e;
        }
        Thread.sleep(500);
      }
    }
  }
}
