package io.sluice.core.spi;

import java.util.List;

/** The nodes of this node's cluster as the shared store lists them, this node included. */
public interface ClusterMembers {

  /** A single node: no members to list. */
  ClusterMembers NONE = List::of;

  /**
   * One node: name, region, where it answers DNS (HOST:PORT) and its admin API (URL), whether it
   * leads, the shared-state revision it has applied, whether its lease is alive, and when it last
   * reported (epoch millis).
   */
  record Member(
      String node,
      String region,
      String dns,
      String admin,
      boolean leader,
      long appliedRevision,
      boolean live,
      long heartbeatMillis) {}

  /** Every known node, in name order. */
  List<Member> members();
}
