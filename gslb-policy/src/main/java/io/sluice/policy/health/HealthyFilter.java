package io.sluice.policy.health;

import io.sluice.core.state.Snapshot;

/**
 * Chain step {@code healthy} (a red line): an endpoint may be handed out when its verdict is usable
 * (not down) and neither it nor its pool is drained. A pool is usable when at least one of its
 * endpoints is. When no pool is usable the service fails open (answers from every pool the other
 * red lines allow, except drained ones) or fails closed (its last resort), as configured.
 */
public final class HealthyFilter {
  private HealthyFilter() {}

  /** True when endpoint {@code endpointKey} of pool {@code pool} may be handed out. */
  public static boolean usable(Snapshot s, String pool, String endpointKey) {
    return s.health().verdict(endpointKey).usable() && !drained(s, pool, endpointKey);
  }

  /**
   * True when the operator drained endpoint {@code endpointKey} or its pool {@code pool}. A drain
   * is a decision, not a failure: not even failing open hands such an endpoint out.
   */
  public static boolean drained(Snapshot s, String pool, String endpointKey) {
    return s.traffic().drained().contains(pool) || s.traffic().drained().contains(endpointKey);
  }
}
