package io.sluice.core.state;

import java.util.List;
import java.util.Map;

/**
 * The operator- and controller-set state of one service that the policy chain reads: weight
 * overrides per pool, the shifts in effect (a ramp, a drill), the TTL to serve while shifting
 * (null: the configured TTL) and the per-service freeze flag.
 */
public record ServicePlan(
    Map<String, Integer> weights, List<Shift> shifts, Long ttlOverride, boolean frozen) {

  /** The plan of a service nobody has touched. */
  public static final ServicePlan DEFAULT = new ServicePlan(Map.of(), List.of(), null, false);

  public ServicePlan {
    weights = Map.copyOf(weights);
    shifts = List.copyOf(shifts);
  }

  public ServicePlan withWeights(Map<String, Integer> w) {
    return new ServicePlan(w, shifts, ttlOverride, frozen);
  }

  public ServicePlan withShifts(List<Shift> s) {
    return new ServicePlan(weights, s, ttlOverride, frozen);
  }

  public ServicePlan withTtlOverride(Long ttl) {
    return new ServicePlan(weights, shifts, ttl, frozen);
  }

  public ServicePlan withFrozen(boolean f) {
    return new ServicePlan(weights, shifts, ttlOverride, f);
  }
}
