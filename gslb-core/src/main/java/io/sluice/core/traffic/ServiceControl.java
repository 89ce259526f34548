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
    return withPlan(w, shifts, stableWeights, stableShifts, stableRevision, ramp, drill, pending);
  }

  ServiceControl withShifts(List<Shift> s) {
    return withPlan(weights, s, stableWeights, stableShifts, stableRevision, ramp, drill, pending);
  }

  ServiceControl withFrozen(boolean f) {
    return withFlags(f, cooldownUntilMillis, shortTtlSince, shortTtlUntil, notice);
  }

  /** Marks the weights and shifts now in effect as the last stable plan. */
  ServiceControl markStable(long revision) {
    return withPlan(weights, shifts, weights, shifts, revision, ramp, drill, pending);
  }

  /**
   * The same control without the shift {@code id}, in effect or in the last stable plan: a
   * maintenance window's move ends wherever an immediate change has copied it.
   */
  ServiceControl withoutShift(String id) {
    return withPlan(
        weights,
        shifts.stream().filter(s -> !s.id().equals(id)).toList(),
        stableWeights,
        stableShifts.stream().filter(s -> !s.id().equals(id)).toList(),
        stableRevision,
        ramp,
        drill,
        pending);
  }

  /** Returns to the last stable plan, dropping any ramp, drill and confirmation. */
  ServiceControl restoreStable() {
    return withPlan(
        stableWeights, stableShifts, stableWeights, stableShifts, stableRevision, null, null, null);
  }

  ServiceControl withRamp(Ramp r) {
    return withPlan(
        weights, shifts, stableWeights, stableShifts, stableRevision, r, drill, pending);
  }

  ServiceControl withDrill(Drill d) {
    return withPlan(weights, shifts, stableWeights, stableShifts, stableRevision, ramp, d, pending);
  }

  ServiceControl withPending(Pending p) {
    return withPlan(weights, shifts, stableWeights, stableShifts, stableRevision, ramp, drill, p);
  }

  ServiceControl withCooldownUntil(long t) {
    return withFlags(frozen, t, shortTtlSince, shortTtlUntil, notice);
  }

  ServiceControl withShortTtl(Long since, Long until) {
    return withFlags(frozen, cooldownUntilMillis, since, until, notice);
  }

  ServiceControl withNotice(String n) {
    return withFlags(frozen, cooldownUntilMillis, shortTtlSince, shortTtlUntil, n);
  }

  /** A copy with a new plan (weights, shifts, stable plan, ramp, drill, confirmation). */
  private ServiceControl withPlan(
      Map<String, Integer> newWeights,
      List<Shift> newShifts,
      Map<String, Integer> newStableWeights,
      List<Shift> newStableShifts,
      long newStableRevision,
      Ramp newRamp,
      Drill newDrill,
      Pending newPending) {
    return new ServiceControl(
        newWeights,
        newShifts,
        frozen,
        newStableWeights,
        newStableShifts,
        newStableRevision,
        newRamp,
        newDrill,
        newPending,
        cooldownUntilMillis,
        shortTtlSince,
        shortTtlUntil,
        notice);
  }

  /** A copy with new flags and timers (freeze, cooldown, TTL window, notice); the plan kept. */
  private ServiceControl withFlags(
      boolean newFrozen, long newCooldownUntil, Long newSince, Long newUntil, String newNotice) {
    return new ServiceControl(
        weights,
        shifts,
        newFrozen,
        stableWeights,
        stableShifts,
        stableRevision,
        ramp,
        drill,
        pending,
        newCooldownUntil,
        newSince,
        newUntil,
        newNotice);
  }
}
