package io.sluice.core.traffic;

import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.TrafficState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the controller's durable state into what the policy chain reads: one {@link ServicePlan}
 * per service (weights in effect, settled shifts plus the ramp's and drill's current shifts, the
 * compressed TTL while shifting) and the freeze and drain sets.
 */
final class PlanProjection {
  private PlanProjection() {}

  /** Every service of the configuration by its absolute name. */
  static Map<String, ServiceConfig> services(SluiceConfig config) {
    ByName last = byName;
    if (last != null && last.config == config) {
      return last.services;
    }
    Map<String, ServiceConfig> out = new LinkedHashMap<>();
    for (ZoneConfig z : config.zones()) {
      for (ServiceConfig s : z.services()) {
        out.put(s.fqdn(z.origin()), s);
      }
    }
    Map<String, ServiceConfig> services = Collections.unmodifiableMap(out);
    byName = new ByName(config, services);
    return services;
  }

  // The services of the configuration asked last: the controller asks every second, and spelling
  // each name of ten thousand services again each time was most of an idle tick.
  private record ByName(SluiceConfig config, Map<String, ServiceConfig> services) {}

  private static volatile ByName byName;

  /** The names of a service's pools, in configured order. */
  static Set<String> poolNames(ServiceConfig cfg) {
    Set<String> out = new LinkedHashSet<>();
    for (ServicePoolConfig sp : cfg.pools()) {
      out.add(sp.pool());
    }
    return out;
  }

  static TrafficState project(ControlState cs, SluiceConfig config) {
    Map<String, ServicePlan> plans = new HashMap<>();
    for (Map.Entry<String, ServiceConfig> e : services(config).entrySet()) {
      ServiceControl sc = cs.services().get(e.getKey());
      if (sc != null) {
        ServicePlan plan = plan(sc, e.getValue());
        if (!plan.frozen() && cs.maintenanceFreezes(e.getKey())) {
          // Readers of the plan see a maintenance window's freeze like an operator's.
          plan = new ServicePlan(plan.weights(), plan.shifts(), plan.ttlOverride(), true);
        }
        plans.put(e.getKey(), plan);
      }
    }
    return new TrafficState(plans, cs.frozen(), cs.drained());
  }

  static ServicePlan plan(ServiceControl sc, ServiceConfig cfg) {
    Map<String, Integer> weights = sc.weights();
    List<Shift> shifts = new ArrayList<>(sc.shifts());
    if (sc.ramp() != null) {
      if (sc.ramp().toWeights() != null) {
        weights = sc.ramp().weightsAt(sc.ramp().index());
      }
      Shift s = sc.ramp().currentShift();
      if (s != null && s.percent() > 0) {
        shifts.add(s);
      }
    }
    if (sc.drill() != null) {
      shifts.add(sc.drill().shift());
    }
    Long ttl = sc.shortTtlSince() == null ? null : cfg.traffic().shiftTtl();
    return new ServicePlan(weights, shifts, ttl, sc.frozen());
  }

  /** The TTL the service's answers carry under {@code plan}. */
  static long servedTtl(ServicePlan plan, ServiceConfig cfg) {
    return plan.ttlOverride() != null ? plan.ttlOverride() : cfg.ttl();
  }

  /**
   * The expected share of clients per pool, in percent: weights (overrides first) among pools not
   * drained, then each shift moves its percentage of its sources' share to its targets in
   * proportion to their weights. A region-scoped shift is left out: how many clients it moves
   * depends on how many clients that region has, which the plan does not know.
   */
  static Map<String, Double> shares(ServicePlan plan, ServiceConfig cfg, Set<String> drained) {
    Map<String, Double> w = new LinkedHashMap<>();
    double total = 0;
    for (ServicePoolConfig sp : cfg.pools()) {
      double v =
          drained.contains(sp.pool()) ? 0 : plan.weights().getOrDefault(sp.pool(), sp.weight());
      w.put(sp.pool(), v);
      total += v;
    }
    Map<String, Double> share = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : w.entrySet()) {
      share.put(e.getKey(), total == 0 ? 0 : e.getValue() / total);
    }
    for (Shift s : plan.shifts()) {
      if (s.region() != null) {
        continue;
      }
      double moved = 0;
      for (String f : s.from()) {
        Double cur = share.get(f);
        if (cur != null) {
          double m = cur * s.percent() / 100.0;
          share.put(f, cur - m);
          moved += m;
        }
      }
      double tw = 0;
      for (String t : s.to()) {
        tw += w.getOrDefault(t, 0.0);
      }
      for (String t : s.to()) {
        if (share.containsKey(t)) {
          double frac = tw == 0 ? 1.0 / s.to().size() : w.getOrDefault(t, 0.0) / tw;
          share.put(t, share.get(t) + moved * frac);
        }
      }
    }
    Map<String, Double> out = new LinkedHashMap<>();
    share.forEach((k, v) -> out.put(k, Math.round(v * 1000) / 10.0));
    return out;
  }
}
