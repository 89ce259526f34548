package io.sluice.policy;

import io.sluice.policy.residency.ResidencyRule;

/**
 * One step of a compiled chain: exactly one of a red-line filter ({@code healthy}, or a residency
 * rule), a {@link Selector}, a {@link Balancer} or the handout limit.
 */
record CompiledStep(
    String text, Kind kind, ResidencyRule residency, Selector selector, Balancer balancer) {

  enum Kind {
    HEALTHY,
    RESIDENCY,
    SELECT,
    BALANCE,
    LIMIT
  }
}
