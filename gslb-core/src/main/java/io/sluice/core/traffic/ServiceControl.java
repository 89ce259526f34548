package io.sluice.core.traffic;

import io.sluice.core.state.Shift;
import java.util.List;
import java.util.Map;

/**
 * The durable traffic state of one service: weights and settled shifts in effect, the last stable
 * plan, the ramp, drill or confirmation in progress, the freeze flag, the cooldown deadline and the
 * TTL-compression window ({@code shortTtlSince}: when the short TTL began; {@code shortTtlUntil}:
 * when the long TTL may return, null while a shift runs). {@code notice} remembers the last
 * condition reported, so a persisting condition is audited once.
 */
public record ServiceControl(
    Map<String, Integer> weights,
    List<Shift> shifts,
    boolean frozen,
    Map<String, Integer> stableWeights,
    List<Shift> stableShifts,
    long stableRevision,
    Ramp ramp,
    Drill drill,
    Pending pending,
    long cooldownUntilMillis,
    Long shortTtlSince,
    Long shortTtlUntil,
    String notice) {

  public static final ServiceControl INITIAL =
      new ServiceControl(
          Map.of(), List.of(), false, Map.of(), List.of(), 0, null, null, null, 0, null, null,
          null);

  public ServiceControl {
    weights = Map.copyOf(weights);
    shifts = List.copyOf(shifts);
    stableWeights = Map.copyOf(stableWeights);
    stableShifts = List.copyOf(stableShifts);
  }

  /** True while a ramp or drill moves traffic. */
  public boolean shifting() {
    return ramp != null || drill != null;
  }

  ServiceControl withWeights(Map<String, Integer> w) {
    return new ServiceControl(
        w,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withShifts(List<Shift> s) {
    return new ServiceControl(
        weights,
        s,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withFrozen(boolean f) {
    return new ServiceControl(
        weights,
        shifts,
        f,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  /** Marks the weights and shifts now in effect as the last stable plan. */
  ServiceControl markStable(long revision) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        weights,
        shifts,
        revision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  /**
   * The same control without the shift {@code id}, in effect or in the last stable plan: a
   * maintenance window's move ends wherever an immediate change has copied it.
   */
  ServiceControl withoutShift(String id) {
    return new ServiceControl(
        weights,
        shifts.stream().filter(s -> !s.id().equals(id)).toList(),
        frozen,
        stableWeights,
        stableShifts.stream().filter(s -> !s.id().equals(id)).toList(),
        stableRevision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  /** Returns to the last stable plan, dropping any ramp, drill and confirmation. */
  ServiceControl restoreStable() {
    return new ServiceControl(
        stableWeights,
        stableShifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        null,
        null,
        null,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withRamp(Ramp r) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        r,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withDrill(Drill d) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        d,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withPending(Pending p) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        p,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withCooldownUntil(long t) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        t,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  ServiceControl withShortTtl(Long since, Long until) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        since,
        until,
        notice);
  }

  ServiceControl withNotice(String n) {
    return new ServiceControl(
        weights,
        shifts,
        frozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        n);
  }
}
