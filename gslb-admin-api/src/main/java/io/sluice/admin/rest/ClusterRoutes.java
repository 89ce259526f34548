package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.spi.ClusterMembers;
import io.sluice.core.spi.ClusterMembers.Member;
import io.sluice.core.spi.Ticker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /api/v1/cluster} (viewer role): every node of the cluster with its region, role,
 * applied shared-state revision, lag and whether it is connected or stale since when; on a single
 * node, a view that says it is not clustered.
 */
final class ClusterRoutes {
  private final Supplier<ClusterMembers> cluster;
  private final Ticker ticker;

  /** A node's part in the cluster, as the view names it. */
  enum NodeRole {
    LEADER,
    FOLLOWER;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  ClusterRoutes(Supplier<ClusterMembers> cluster, Ticker ticker) {
    this.cluster = cluster;
    this.ticker = ticker;
  }

  void register(Router r) {
    r.add(
        "GET",
        AdminServer.API_PREFIX + "/cluster",
        Role.VIEWER,
        req -> ApiResponse.ok(view(cluster.get(), ticker.currentTimeMillis())));
  }

  /** The cluster as this node sees it at {@code now} (epoch millis). */
  static Map<String, Object> view(ClusterMembers c, long now) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (c.self().isEmpty()) {
      m.put("clustered", false);
      m.put(
          "message",
          "not clustered: this node runs alone on its local state (no cluster section in its"
              + " configuration)");
      m.put("nodes", List.of());
      return m;
    }
    List<Member> members = c.members();
    long shared = c.sharedRevision();
    m.put("clustered", true);
    m.put("node", c.self().get());
    m.put(
        "leader",
        members.stream().filter(Member::leader).map(Member::node).findFirst().orElse(null));
    m.put("connected", c.connected());
    m.put("lastContact", time(c.lastContactMillis()));
    m.put("lastContactAgeSeconds", age(now, c.lastContactMillis()));
    m.put("sharedRevision", shared);
    List<Map<String, Object>> nodes = new ArrayList<>();
    for (Member member : members) {
      Map<String, Object> n = new LinkedHashMap<>();
      n.put("node", member.node());
      n.put("self", member.node().equals(c.self().get()));
      n.put("region", member.region());
      n.put("role", (member.leader() ? NodeRole.LEADER : NodeRole.FOLLOWER).label());
      n.put("dns", member.dns());
      n.put("admin", member.admin());
      n.put("appliedRevision", member.appliedRevision());
      n.put("lag", Math.max(0, shared - member.appliedRevision()));
      n.put("connected", member.live());
      n.put("staleSince", member.live() ? null : time(member.heartbeatMillis()));
      n.put("lastHeartbeat", time(member.heartbeatMillis()));
      n.put("lastHeartbeatAgeSeconds", age(now, member.heartbeatMillis()));
      nodes.add(n);
    }
    m.put("nodes", nodes);
    return m;
  }

  private static String time(long millis) {
    return millis <= 0 ? null : Instant.ofEpochMilli(millis).toString();
  }

  private static Double age(long now, long millis) {
    return millis <= 0 ? null : Math.max(0, now - millis) / 1000.0;
  }
}
