package io.sluice.server.app;

import io.etcd.jetcd.Client;
import io.sluice.cluster.EtcdClients;
import io.sluice.cluster.EtcdStateLog;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.store.SharedStateLog;
import java.io.IOException;

/**
 * A cluster node's connection to etcd: the client (under the cluster's key prefix) and the shared
 * operator state on it. Opening never waits for etcd, so a node whose etcd is unreachable still
 * starts and serves its last persisted state.
 */
final class ClusterConnection implements AutoCloseable {
  private final Client client;
  private final EtcdStateLog state;

  private ClusterConnection(Client client, EtcdStateLog state) {
    this.client = client;
    this.state = state;
  }

  /** The connection of {@code config}'s cluster, or null for a single node. */
  static ClusterConnection open(SluiceConfig config) throws IOException {
    if (!config.clustered()) {
      return null;
    }
    Client client = EtcdClients.create(config);
    return new ClusterConnection(client, EtcdStateLog.open(client, config));
  }

  /** The etcd client, for the other parts of the cluster. */
  Client client() {
    return client;
  }

  /** The shared operator state. */
  SharedStateLog state() {
    return state;
  }

  @Override
  public void close() {
    state.close();
    client.close();
  }
}
