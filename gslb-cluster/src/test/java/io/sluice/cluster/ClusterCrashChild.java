package io.sluice.cluster;

import io.etcd.jetcd.Client;
import io.sluice.core.control.Actor;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.traffic.TrafficSystem;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The child process of the cluster crash test: node {@code args[1]} with its state in {@code
 * args[0]} on the etcd at {@code args[2]}; catches up, prints {@code restored P S} (the weights it
 * serves), then applies weight changes, printing {@code ack N} after each command returns, until it
 * is killed.
 */
public final class ClusterCrashChild {
  private ClusterCrashChild() {}

  public static void main(String[] args) throws Exception {
    var config = SharedStateOnEtcdTest.config(args[1], List.of(args[2]));
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    Client client = EtcdClients.create(config);
    EtcdStateLog log = EtcdStateLog.open(client, config);
    TrafficSystem sys =
        TrafficSystem.openManualClustered(
            store, Path.of(args[0]), Ticker.SYSTEM, GslbMetrics.NOOP, g -> 0, log);
    // A loaded machine may keep etcd from answering within the timeout: try again, bounded.
    for (int attempt = 1; ; attempt++) {
      try {
        sys.controller().catchUp();
        break;
      } catch (ClusterUnreachableException e) {
        if (attempt == 15) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
    Map<String, Integer> w = store.current().traffic().plan(SharedStateOnEtcdTest.APP).weights();
    int n = w.getOrDefault("primary", 0);
    out.println("restored " + n + " " + w.getOrDefault("standby", 0));
    out.flush();
    Actor actor = new Actor("crash-test", "operator");
    for (int i = n + 1; ; i++) {
      // Both weights change in one command: it must never be found half-applied. A command etcd
      // did not answer in time is sent again with its request id, as an operator would.
      setWeights(sys, actor, i);
      out.println("ack " + i);
      out.flush();
    }
  }

  private static void setWeights(TrafficSystem sys, Actor actor, int i) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        sys.controlPlane()
            .setWeights(
                actor,
                SharedStateOnEtcdTest.APP,
                Map.of("primary", i, "standby", i),
                false,
                "n",
                "r" + i);
        return;
      } catch (ClusterUnreachableException e) {
        if (attempt == 15) {
          throw e;
        }
        Thread.sleep(200);
        sys.controller().catchUp();
      }
    }
  }
}
