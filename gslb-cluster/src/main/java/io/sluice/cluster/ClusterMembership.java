package io.sluice.cluster;

import io.etcd.jetcd.Client;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.ClusterMembers;
import io.sluice.core.spi.Leadership;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * This node's part in its cluster: the node lease (granted in the background, so a node whose etcd
 * is down still starts), the leader election, its registry entry and its view of the other nodes.
 * Opened before the traffic controller, which takes its {@link #leadership()}; started once the
 * node answers DNS and the controller can catch up with the shared state.
 */
public final class ClusterMembership implements AutoCloseable {
  private final Client client;
  private final ClusterConfig cluster;
  private final Duration timeout;
  private final NodeLease lease;
  private final long startedMillis = System.currentTimeMillis();
  private volatile EtcdLeadership election;
  private volatile NodeRegistry registry;
  private final EtcdClusterMembers members;
  private volatile LongSupplier appliedRevision = () -> 0;

  private ClusterMembership(Client client, ClusterConfig cluster) {
    this.client = client;
    this.cluster = cluster;
    this.timeout = cluster.etcd().timeout();
    this.lease = NodeLease.start(client, cluster.leaseTtl(), timeout);
    this.members =
        EtcdClusterMembers.start(
            client,
            lease,
            cluster.node(),
            () -> {
              EtcdLeadership e = election;
              return e == null ? Optional.empty() : e.leader();
            },
            () -> appliedRevision.getAsLong(),
            timeout);
  }

  /** Opens the membership of {@code config}'s node over {@code client}; never waits for etcd. */
  public static ClusterMembership open(Client client, SluiceConfig config) {
    if (config.cluster() == null) {
      throw new IllegalArgumentException("the configuration has no cluster section");
    }
    return new ClusterMembership(client, config.cluster());
  }

  /** The node lease, for the other keys this node publishes (health opinions). */
  public NodeLease lease() {
    return lease;
  }

  /** Whether this node leads: false until {@link #start} and while another node does. */
  public Leadership leadership() {
    return () -> {
      EtcdLeadership e = election;
      return e != null && e.leads();
    };
  }

  /**
   * The cluster's nodes as this node sees them (from etcd's registry, also before {@link #start}).
   */
  public ClusterMembers members() {
    return members;
  }

  /**
   * Joins the election ({@code catchUp} runs before each term as leader), registers this node with
   * the addresses others reach it at ({@code cluster.advertise}, else {@code dns} and {@code
   * admin}), and follows the registry. {@code appliedRevision} is the shared-state revision this
   * node has applied.
   */
  public synchronized void start(
      Runnable catchUp, LongSupplier appliedRevision, String dns, String admin) {
    if (election != null) {
      throw new IllegalStateException("already started");
    }
    String node = cluster.node();
    this.appliedRevision = appliedRevision;
    election = EtcdLeadership.start(client, lease, node, catchUp, timeout);
    ClusterConfig.Advertise adv = cluster.advertise();
    registry =
        NodeRegistry.start(
            client,
            lease,
            new NodeRegistry.Entry(
                node,
                cluster.region(),
                adv.dns() != null ? adv.dns() : dns,
                adv.admin() != null ? adv.admin() : admin,
                0,
                startedMillis,
                0),
            appliedRevision,
            timeout);
  }

  /**
   * Leaves the cluster in order: gives the leader key up (another node takes over at once), stops
   * the registry and the view, and revokes the lease, so this node's keys vanish now.
   */
  @Override
  public synchronized void close() {
    if (election != null) {
      election.close();
    }
    if (registry != null) {
      registry.close();
    }
    members.close();
    lease.close();
  }
}
