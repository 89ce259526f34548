package io.sluice.server.app;

import io.etcd.jetcd.Client;
import io.sluice.cluster.EtcdClients;
import io.sluice.cluster.EtcdCookieSecrets;
import io.sluice.cluster.EtcdStateLog;
import io.sluice.cluster.EtcdWebhookCursors;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.notify.SharedCursors;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.SharedStateLog;
import io.sluice.dns.response.CookieKeyring;
import java.io.IOException;

/**
 * A cluster node's connection to etcd: the client (under the cluster's key prefix), the shared
 * operator state on it, and the shared DNS cookie secrets. Opening never waits for etcd, so a node
 * whose etcd is unreachable still starts and serves its last persisted state.
 */
final class ClusterConnection implements AutoCloseable {
  private final Client client;
  private final EtcdStateLog state;
  private final java.time.Duration timeout;
  // The shared DNS cookie secrets, once started.
  private SharedCookies cookies;

  private ClusterConnection(Client client, EtcdStateLog state, java.time.Duration timeout) {
    this.client = client;
    this.state = state;
    this.timeout = timeout;
  }

  /** The connection of {@code config}'s cluster, or null for a single node. */
  static ClusterConnection open(SluiceConfig config) throws IOException {
    if (!config.clustered()) {
      return null;
    }
    Client client = EtcdClients.create(config);
    return new ClusterConnection(
        client, EtcdStateLog.open(client, config), config.cluster().etcd().timeout());
  }

  /** The etcd client, for the other parts of the cluster. */
  Client client() {
    return client;
  }

  /** Where the leader records how far each webhook received the cluster's events. */
  SharedCursors webhookCursors() {
    return EtcdWebhookCursors.create(client, timeout);
  }

  /** The shared operator state. */
  SharedStateLog state() {
    return state;
  }

  /**
   * Starts sharing the DNS cookie secrets of {@code keyring} with the cluster (see {@link
   * SharedCookies}); returns the rotate command.
   */
  SharedCookies shareCookies(CookieKeyring keyring, SnapshotStore store) {
    cookies = SharedCookies.start(keyring, EtcdCookieSecrets.create(client, timeout), store);
    return cookies;
  }

  @Override
  public void close() {
    if (cookies != null) {
      cookies.close();
    }
    state.close();
    client.close();
  }
}
