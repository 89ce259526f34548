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

  private ClusterHealth(SluiceConfig config) throws IOException {
    this.cluster = config.cluster();
    this.client = EtcdClients.create(config);
    this.opinions =
        EtcdOpinions.create(
            client, cluster.node(), this::leaseId, cluster.etcd().timeout(), Ticker.SYSTEM);
  }

  /** Connects (lazily: nothing waits for etcd here) for the cluster of {@code config}. */
  public static ClusterHealth open(SluiceConfig config) throws IOException {
    return new ClusterHealth(config);
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
    if (lease != null) {
      lease.close();
    }
    client.close();
  }
}
