package io.sluice.core.spi;

import java.util.List;
import java.util.Optional;

/**
 * The nodes of this node's cluster as the shared store lists them, this node included, and this
 * node's contact with the store. Read from a cache: never blocks, so status pages and metrics may
 * call it at any time.
 */
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

  /** This node's name in the cluster; empty on a single node. */
  default Optional<String> self() {
    return Optional.empty();
  }

  /**
   * The revision of the newest shared state this node has seen in the store: a member's lag is this
   * minus its applied revision. 0 when unknown or on a single node.
   */
  default long sharedRevision() {
    return 0;
  }

  /** Whether this node is in contact with the shared store now (always true on a single node). */
  default boolean connected() {
    return true;
  }

  /** When this node last heard from the shared store (epoch millis); 0 on a single node. */
  default long lastContactMillis() {
    return 0;
  }

  /** This node's own entry, when clustered. */
  default Optional<Member> local() {
    return self().flatMap(n -> members().stream().filter(m -> m.node().equals(n)).findFirst());
  }
}
