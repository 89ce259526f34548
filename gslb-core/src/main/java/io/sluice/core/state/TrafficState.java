package io.sluice.core.state;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Traffic state across services: each service's plan, the global freeze switch, and the drained
 * pools and endpoints (by pool name or endpoint key) that must receive no new traffic.
 */
public record TrafficState(Map<String, ServicePlan> services, boolean frozen, Set<String> drained) {

  /** No overrides, nothing frozen or drained. */
  public static final TrafficState EMPTY = new TrafficState(Map.of(), false, Set.of());

  public TrafficState {
    services = Map.copyOf(services);
    drained = Set.copyOf(drained);
  }

  /** The plan of {@code service} (its FQDN), or the default plan. */
  public ServicePlan plan(String service) {
    return services.getOrDefault(service, ServicePlan.DEFAULT);
  }

  /** A new state with one service's plan replaced. */
  public TrafficState withPlan(String service, ServicePlan plan) {
    Map<String, ServicePlan> copy = new HashMap<>(services);
    copy.put(service, plan);
    return new TrafficState(copy, frozen, drained);
  }

  public TrafficState withFrozen(boolean f) {
    return new TrafficState(services, f, drained);
  }

  public TrafficState withDrained(Set<String> d) {
    return new TrafficState(services, frozen, d);
  }
}
