package io.sluice.admin.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.spi.ClusterMembers;
import io.sluice.core.spi.ClusterMembers.Member;

/**
 * The cluster gauges of a clustered node, read from its {@link ClusterMembers} cache at each
 * scrape: applied revision, lag behind the shared state, whether it leads, the age of its last
 * contact with etcd, and whether it is connected.
 */
public final class ClusterMeters {
  private ClusterMeters() {}

  /**
   * Registers the gauges for {@code cluster} in {@code registry}; they hold {@code cluster}
   * strongly (a gauge's object is otherwise only weakly held and its value turns NaN once
   * collected).
   */
  public static void register(MeterRegistry registry, ClusterMembers cluster) {
    Gauge.builder("sluice_cluster_applied_revision", cluster, c -> applied(c))
        .description("The shared-state revision this node has applied")
        .strongReference(true)
        .register(registry);
    Gauge.builder(
            "sluice_cluster_lag_revisions",
            cluster,
            c -> Math.max(0, c.sharedRevision() - applied(c)))
        .description(
            "How far this node is behind the newest shared state in etcd, in etcd revisions")
        .strongReference(true)
        .register(registry);
    Gauge.builder(
            "sluice_cluster_leader",
            cluster,
            c -> c.local().map(Member::leader).orElse(false) ? 1 : 0)
        .description("1 while this node leads the cluster (runs the automatic steps), else 0")
        .strongReference(true)
        .register(registry);
    Gauge.builder(
            "sluice_cluster_last_contact_age_seconds",
            cluster,
            c -> Math.max(0, System.currentTimeMillis() - c.lastContactMillis()) / 1000.0)
        .description("Seconds since this node last heard from etcd")
        .strongReference(true)
        .register(registry);
    Gauge.builder("sluice_cluster_connected", cluster, c -> c.connected() ? 1 : 0)
        .description("1 while this node is in contact with etcd, else 0 (serving its last state)")
        .strongReference(true)
        .register(registry);
  }

  private static double applied(ClusterMembers c) {
    return c.local().map(Member::appliedRevision).orElse(0L);
  }
}
