package io.sluice.policy.health;

import io.sluice.core.state.Snapshot;

/**
 * Chain step {@code healthy} (a red line): an endpoint may be handed out when its verdict is usable
 * (not down) and neither it nor its pool is drained. A pool is usable when at least one of its
 * endpoints is. When no pool is usable the service fails open (answers from every pool the other
 * red lines allow) or fails closed (its last resort), as configured.
 */
public final class HealthyFilter {
  private HealthyFilter() {}

  /** True when endpoint {@code endpointKey} of pool {@code pool} may be handed out. */
  public static boolean usable(Snapshot s, String pool, String endpointKey) {
    return s.health().verdict(endpointKey).usable()
        && !s.traffic().drained().contains(pool)
        && !s.traffic().drained().contains(endpointKey);
  }
}
