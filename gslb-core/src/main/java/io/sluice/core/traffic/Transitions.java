package io.sluice.core.traffic;

import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Shift;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state transitions shared by operator commands and controller steps: starting and advancing a
 * ramp, accepting or rejecting what waits for confirmation, ending a drill, settling a ramp, and
 * opening and closing the short-TTL window. Each returns the {@link Outcome} to apply.
 */
final class Transitions {
  private final GslbMetrics metrics;

  Transitions(GslbMetrics metrics) {
    this.metrics = metrics;
  }

  Outcome startRamp(
      ControlState cs,
      String name,
      ServiceConfig cfg,
      ServiceControl sc,
      Ramp r,
      long now,
      String action,
      Map<String, Object> details) {
    Ramp first = r.at(0, now);
    first = first.withRecord(Switches.step(r.record(), "step", r.percent(0), now, null));
    metrics.rampStarted(name, r.kind().wire());
    metrics.rampStep(name, r.percent(0));
    ServiceControl next = beginShift(sc.withRamp(first), now);
    return new Outcome(
        cs.withService(name, next),
        action,
        name,
        r.describe() + " started: " + r.stepText(0),
        withRamp(details, r.id()));
  }

  Outcome advance(
      ControlState cs,
      String name,
      ServiceControl sc,
      Ramp r,
      long now,
      String action,
      Map<String, Object> gateValues) {
    Ramp next = r.at(r.index() + 1, now).withState(Ramp.State.RUNNING);
    next = next.withRecord(Switches.step(r.record(), "step", r.percent(r.index() + 1), now, null));
    metrics.rampStep(name, r.percent(r.index() + 1));
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("ramp", r.id());
    d.put("percent", r.percent(r.index() + 1));
    if (gateValues != null) {
      d.put("gates", gateValues);
    }
    return new Outcome(
        cs.withService(name, sc.withRamp(next).withPending(null)),
        action,
        name,
        r.describe() + " at " + r.stepText(r.index() + 1),
        d);
  }

  Outcome acceptPending(ControlState cs, String name, ServiceConfig cfg, long now) {
    ServiceControl sc = cs.service(name);
    Pending p = sc.pending();
    if (p != null && p.proposal() != null) {
      Ramp r = p.proposal().at(-1, now);
      ServiceControl base = sc.withPending(null);
      if (p.kind() == Pending.Kind.FAILBACK) {
        base =
            base.withShifts(
                sc.shifts().stream().filter(s -> !s.id().equals(r.shift().id())).toList());
      }
      return startRamp(cs, name, cfg, base, r, now, "confirm", Map.of("accepted", p.summary()));
    }
    Ramp r = sc.ramp();
    if (r.lastStep()) {
      return new Outcome(
          cs.withService(name, sc.withRamp(r.withState(Ramp.State.RUNNING)).withPending(null)),
          "confirm",
          name,
          "ramp resumed",
          Map.of("ramp", r.id()));
    }
    return advance(cs, name, sc, r, now, "confirm", null);
  }

  Outcome rejectPending(ControlState cs, String name, ServiceConfig cfg, long now, String why) {
    ServiceControl sc = cs.service(name);
    long cooldown = now + cfg.traffic().cooldown().toMillis();
    Pending p = sc.pending();
    if (p != null && p.proposal() != null) {
      SwitchRecord rec =
          Switches.finish(p.proposal().record(), "rejected", now, Map.of("why", why));
      return new Outcome(
          cs.withService(name, sc.withPending(null).withCooldownUntil(cooldown)),
          "reject",
          name,
          "rejected: " + p.summary(),
          Map.of("rejected", p.summary(), "why", why),
          List.of(rec));
    }
    List<SwitchRecord> finished = new ArrayList<>();
    for (SwitchRecord r : activeRecords(sc)) {
      finished.add(
          Switches.finish(
              Switches.step(r, "rolled-back", 0, now, null),
              "rolled-back",
              now,
              Map.of("why", why)));
    }
    ServiceControl restored = endShift(sc.restoreStable(), cfg, now).withCooldownUntil(cooldown);
    return new Outcome(
        cs.withService(name, restored),
        "reject",
        name,
        "ramp rejected and rolled back: " + why,
        Map.of("why", why),
        finished);
  }

  Outcome endDrill(
      ControlState cs, String name, ServiceConfig cfg, long now, String result, GateResult g) {
    ServiceControl sc = cs.service(name);
    Drill d = sc.drill();
    SwitchRecord rec =
        Switches.step(
            d.record(),
            result.equals("failed") ? "gate-failed" : "restored",
            0,
            now,
            g == null ? null : g.measured());
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("result", result);
    if (g != null && g.failure() != null) {
      extra.put("failure", g.failure());
    }
    rec = Switches.finish(rec, "drill-" + result, now, extra);
    ServiceControl next = endShift(sc.withDrill(null), cfg, now);
    Map<String, Object> details = new LinkedHashMap<>(extra);
    details.put("drill", d.id());
    if (g != null) {
      details.put("gates", g.measured());
    }
    return new Outcome(
        cs.withService(name, next),
        "drill-end",
        name,
        "drill " + result + ", traffic restored",
        details,
        List.of(rec));
  }

  /** Makes the ramp's current position the settled plan. */
  static ServiceControl settle(ServiceControl sc, Ramp r) {
    ServiceControl next = sc.withRamp(null);
    if (r.toWeights() != null) {
      return next.withWeights(r.weightsAt(r.index()));
    }
    List<Shift> shifts = new ArrayList<>(sc.shifts());
    shifts.removeIf(s -> s.id().equals(r.shift().id()));
    Shift now = r.currentShift();
    if (now.percent() > 0) {
      shifts.add(now);
    }
    return next.withShifts(shifts);
  }

  /** Starts serving the short TTL (or keeps it), since a shift is starting. */
  static ServiceControl beginShift(ServiceControl sc, long now) {
    return sc.withShortTtl(sc.shortTtlSince() == null ? now : sc.shortTtlSince(), null);
  }

  /**
   * A shift ended: the short TTL stays until every answer handed out since the shift began has
   * expired (short ones: {@code now + shiftTtl}; long ones from before the shift: {@code since +
   * ttl}) plus the margin. Kept open while another ramp or drill still runs.
   */
  static ServiceControl endShift(ServiceControl sc, ServiceConfig cfg, long now) {
    if (sc.shifting()) {
      return sc;
    }
    long since = sc.shortTtlSince() == null ? now : sc.shortTtlSince();
    TrafficConfig tc = cfg.traffic();
    long until =
        Math.max(now + tc.shiftTtl() * 1000, since + cfg.ttl() * 1000) + tc.ttlMargin().toMillis();
    return sc.withShortTtl(since, until);
  }

  /**
   * Answers changed at once, without a shift (immediate weights, a drain, a verdict): the short TTL
   * from the first changed answer until every answer handed out before it has expired.
   */
  static ServiceControl compress(ServiceControl sc, ServiceConfig cfg, long now) {
    return endShift(beginShift(sc, now), cfg, now);
  }

  /** The switch records of the ramp and drill in progress. */
  static List<SwitchRecord> activeRecords(ServiceControl sc) {
    List<SwitchRecord> out = new ArrayList<>();
    if (sc.ramp() != null) {
      out.add(sc.ramp().record());
    }
    if (sc.drill() != null) {
      out.add(sc.drill().record());
    }
    return out;
  }

  static Map<String, Object> withRamp(Map<String, Object> d, String id) {
    Map<String, Object> out = new LinkedHashMap<>(d);
    out.put("ramp", id);
    return out;
  }
}
