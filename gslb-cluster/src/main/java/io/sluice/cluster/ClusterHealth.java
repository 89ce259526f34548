package io.sluice.cluster;

import io.etcd.jetcd.Client;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.Ticker;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The health side of a cluster node: its etcd client, the node lease its opinions are attached to
 * and the {@link EtcdOpinions} exchange. The lease is granted on first use and granted again when
 * it lapsed (a cut longer than the lease TTL), so a node that starts while etcd is unreachable, or
 * comes back after a long cut, shares its opinions as soon as etcd answers.
 */
public final class ClusterHealth implements AutoCloseable {
  private final Client client;
  private final ClusterConfig cluster;
  private final EtcdOpinions opinions;
  private NodeLease lease;
  // True when the client and lease belong to the node (closed by their owner, not here).
  private boolean sharedLease;

  private ClusterHealth(SluiceConfig config) throws IOException {
    this.cluster = config.cluster();
    this.client = EtcdClients.create(config);
    this.opinions =
        EtcdOpinions.create(
            client, cluster.node(), this::leaseId, cluster.etcd().timeout(), Ticker.SYSTEM);
  }

  private ClusterHealth(SluiceConfig config, Client client, NodeLease shared) {
    this.cluster = config.cluster();
    this.client = client;
    this.lease = shared;
    this.sharedLease = true;
    this.opinions =
        EtcdOpinions.create(
            client,
            cluster.node(),
            () -> {
              if (!shared.alive()) {
                throw new IllegalStateException("the node lease is not alive");
              }
              return shared.id();
            },
            cluster.etcd().timeout(),
            Ticker.SYSTEM);
    shared.addListener(
        new NodeLease.Listener() {
          @Override
          public void granted(long id) {
            // The next check resyncs: it puts this node's opinions again on the live lease.
          }

          @Override
          public void lost(long id) {
            opinions.leaseLost();
          }
        });
  }

  /**
   * Connects (lazily: nothing waits for etcd here) for the cluster of {@code config}, with a client
   * and lease of its own.
   */
  public static ClusterHealth open(SluiceConfig config) throws IOException {
    return new ClusterHealth(config);
  }

  /**
   * The health side of a node that already has its etcd client and node lease (the node's one
   * lease, shared with its registry entry and the leader key); closing leaves both open.
   */
  public static ClusterHealth open(SluiceConfig config, Client client, NodeLease lease) {
    return new ClusterHealth(config, client, lease);
  }

  /** The opinion exchange to hand to the probe service. */
  public EtcdOpinions opinions() {
    return opinions;
  }

  /** The live lease's id, granting a new one first when there is none or it lapsed. */
  private synchronized long leaseId() {
    long ttlMillis = cluster.leaseTtl().toMillis();
    if (lease != null && System.currentTimeMillis() - lease.lastKeepAliveMillis() > ttlMillis) {
      lease.close();
      lease = null;
    }
    if (lease == null) {
      try {
        lease = NodeLease.grant(client, cluster.leaseTtl(), cluster.etcd().timeout());
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("cannot grant the node lease: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while granting the node lease", e);
      }
    }
    return lease.id();
  }

  @Override
  public synchronized void close() {
    opinions.close();
    if (sharedLease) {
      return;
    }
    if (lease != null) {
      lease.close();
    }
    client.close();
  }
}
