package io.sluice.core.traffic;

import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.HealthView;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the controller does on its own, once per tick and service: ends drills at their time box or
 * on a failing gate, withdraws stale proposals, applies the confirmation timeout policy, advances
 * or rolls back ramps by their windows and gates, restores the long TTL, and detects failover and
 * failback from the health verdicts.
 */
final class ControllerSteps {
  private final SnapshotStore store;
  private final StateWriter writer;
  private final Transitions transitions;
  private final GateEvaluator gates;
  private final GslbMetrics metrics;
  private final Ticker ticker;

  ControllerSteps(
      SnapshotStore store,
      StateWriter writer,
      Transitions transitions,
      GateEvaluator gates,
      GslbMetrics metrics,
      Ticker ticker) {
    this.store = store;
    this.writer = writer;
    this.transitions = transitions;
    this.gates = gates;
    this.metrics = metrics;
    this.ticker = ticker;
  }

  /**
   * One controller step over every service: drill time boxes and gates, confirmation timeouts, ramp
   * gates and windows, TTL restore, and failover/failback detection from the health verdicts. Gates
   * (which may call an external metric over HTTP) are evaluated before the writer lock is taken, so
   * a slow metric never delays an operator's rollback.
   */
  public void tick() {
    Snapshot snap = store.current();
    ControlState cs = writer.state();
    Map<String, ServiceConfig> services = PlanProjection.services(snap.config());
    Map<String, GateResult> results = new HashMap<>();
    for (Map.Entry<String, ServiceConfig> e : services.entrySet()) {
      ServiceControl sc = cs.service(e.getKey());
      if (sc.ramp() != null && !Ramp.PAUSED.equals(sc.ramp().state())) {
        results.put(
            sc.ramp().id(),
            gates.evaluate(
                snap.config(), snap.health(), sc.ramp().targets(), e.getValue().traffic().gates()));
      }
      if (sc.drill() != null) {
        results.put(
            sc.drill().id(),
            gates.evaluate(
                snap.config(),
                snap.health(),
                sc.drill().shift().to(),
                e.getValue().traffic().gates()));
      }
    }
    for (Map.Entry<String, ServiceConfig> e : services.entrySet()) {
      String name = e.getKey();
      ServiceConfig cfg = e.getValue();
      // The lock is fair and taken per service, so an operator's command waits for at most one
      // service's step, however many services the controller is moving.
      writer.locked(
          () -> {
            long now = ticker.currentTimeMillis();
            HealthView health = store.current().health();
            writer.controllerStep(drillStep(name, cfg, results, now));
            writer.controllerStep(staleProposal(name, cfg, health, snap.config()));
            writer.controllerStep(pendingTimeout(name, cfg, now));
            writer.controllerStep(rampStep(name, cfg, results, now));
            writer.controllerStep(ttlRestore(name, cfg, now));
            writer.controllerStep(detect(name, cfg, health, snap.config(), now));
          });
    }
  }

  private Outcome drillStep(
      String name, ServiceConfig cfg, Map<String, GateResult> results, long now) {
    ControlState cs = writer.state();
    Drill d = cs.service(name).drill();
    if (d == null) {
      return null;
    }
    GateResult g = results.get(d.id());
    if (g != null && !g.passed()) {
      return transitions.endDrill(cs, name, cfg, now, "failed", g);
    }
    if (now >= d.endsMillis()) {
      return transitions.endDrill(cs, name, cfg, now, "passed", g);
    }
    return null;
  }

  /**
   * Withdraws a proposed failover whose pools are no longer failed, or a proposed failback whose
   * pools are not recovered any more: confirming it later would act on a condition that is gone.
   */
  private Outcome staleProposal(
      String name, ServiceConfig cfg, HealthView health, SluiceConfig config) {
    TrafficConfig traffic = cfg.traffic();
    ControlState cs = writer.state();
    ServiceControl sc = cs.service(name);
    Pending p = sc.pending();
    if (p == null || p.proposal() == null) {
      return null;
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    boolean holds =
        "start".equals(p.kind())
            ? p.proposal().shift().from().stream()
                .allMatch(pool -> PoolHealth.down(config, traffic, health, pool, evidence))
            : p.proposal().shift().from().stream()
                .allMatch(pool -> PoolHealth.recovered(config, health, pool, evidence));
    if (holds) {
      return null;
    }
    SwitchRecord rec =
        Switches.finish(
            p.proposal().record(),
            "withdrawn",
            ticker.currentTimeMillis(),
            Map.of("why", "the condition cleared before confirmation"));
    return new Outcome(
        cs.withService(name, sc.withPending(null).withNotice(null)),
        "proposal-withdrawn",
        name,
        "withdrawn: " + p.summary() + " (the condition cleared)",
        Map.of("withdrawn", p.summary()),
        List.of(rec));
  }

  private Outcome pendingTimeout(String name, ServiceConfig cfg, long now) {
    ControlState cs = writer.state();
    ServiceControl sc = cs.service(name);
    Pending p = sc.pending();
    if (p == null || now < p.expiresMillis()) {
      return null;
    }
    if ("proceed".equals(cfg.traffic().onConfirmTimeout())) {
      if (cs.frozen() || sc.frozen()) {
        return null;
      }
      Outcome o = transitions.acceptPending(cs, name, cfg, now);
      return o.withAction("confirm-timeout-proceed");
    }
    return transitions
        .rejectPending(
            cs, name, cfg, now, "no confirmation within " + cfg.traffic().confirmTimeout())
        .withAction("confirm-timeout-reject");
  }

  private Outcome rampStep(
      String name, ServiceConfig cfg, Map<String, GateResult> results, long now) {
    ControlState cs = writer.state();
    ServiceControl sc = cs.service(name);
    Ramp r = sc.ramp();
    if (r == null || Ramp.PAUSED.equals(r.state())) {
      return null;
    }
    GateResult g = results.get(r.id());
    if (g == null) {
      return null; // started after this tick's gates were measured
    }
    if (!g.passed()) {
      int back = r.lastGood();
      Ramp paused = r.at(back, now).withState(Ramp.PAUSED);
      paused =
          paused.withRecord(
              Switches.step(r.record(), "gate-failed", r.percent(back), now, g.measured()));
      metrics.rampStep(name, r.percent(back));
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("ramp", r.id());
      d.put("failure", g.failure());
      d.put("measured", g.measured());
      d.put("fromPercent", r.percent(r.index()));
      d.put("toPercent", r.percent(back));
      return new Outcome(
          cs.withService(name, sc.withRamp(paused).withPending(null)),
          "gate-failed",
          name,
          g.failure(),
          d);
    }
    if (!Ramp.RUNNING.equals(r.state()) || now - r.stepSinceMillis() < r.windowMillis()) {
      return null;
    }
    Ramp good =
        r.withLastGood(r.index())
            .withRecord(
                Switches.step(
                    r.record(), "window-passed", r.percent(r.index()), now, g.measured()));
    if (r.lastStep()) {
      SwitchRecord rec = Switches.finish(good.record(), "completed", now, Map.of());
      ServiceControl next = Transitions.settle(sc, good).withPending(null);
      next =
          Transitions.endShift(next.markStable(cs.revision() + 1), cfg, now)
              .withCooldownUntil(now + cfg.traffic().cooldown().toMillis());
      return new Outcome(
          cs.withService(name, next),
          "ramp-complete",
          name,
          r.kind() + " ramp complete",
          Map.of("ramp", r.id(), "gates", g.measured()),
          List.of(rec));
    }
    if (cs.frozen() || sc.frozen()) {
      if (r.lastGood() == r.index()) {
        return null;
      }
      return new Outcome(
          cs.withService(name, sc.withRamp(good)),
          "ramp-held",
          name,
          "window passed; frozen, not advancing",
          Map.of("ramp", r.id(), "gates", g.measured()));
    }
    if (r.confirmEachStep()) {
      Ramp waiting = good.withState(Ramp.AWAITING_CONFIRM);
      double nextPct = r.percent(r.index() + 1);
      Pending p =
          new Pending(
              "step",
              "advance " + r.kind() + " to " + nextPct + "%",
              now,
              now + cfg.traffic().confirmTimeout().toMillis(),
              null);
      return new Outcome(
          cs.withService(name, sc.withRamp(waiting).withPending(p)),
          "step-proposed",
          name,
          p.summary(),
          Map.of("ramp", r.id(), "gates", g.measured()));
    }
    return transitions.advance(cs, name, sc, good, now, "ramp-step", g.measured());
  }

  private Outcome ttlRestore(String name, ServiceConfig cfg, long now) {
    ControlState cs = writer.state();
    ServiceControl sc = cs.service(name);
    if (sc.shifting() || sc.shortTtlUntil() == null || now < sc.shortTtlUntil()) {
      return null;
    }
    return new Outcome(
        cs.withService(name, sc.withShortTtl(null, null)),
        "ttl-restored",
        name,
        "serving the configured TTL " + cfg.ttl() + " s again",
        Map.of("ttl", cfg.ttl()));
  }

  private Outcome detect(
      String name, ServiceConfig cfg, HealthView health, SluiceConfig config, long now) {
    ControlState cs = writer.state();
    ServiceControl sc = cs.service(name);
    TrafficConfig tc = cfg.traffic();
    if (sc.ramp() != null
        || sc.drill() != null
        || sc.pending() != null
        || cs.frozen()
        || sc.frozen()
        || now < sc.cooldownUntilMillis()) {
      return null;
    }
    List<String> pools = new ArrayList<>(PlanProjection.poolNames(cfg));
    Set<String> movedAway = new HashSet<>();
    for (Shift s : sc.shifts()) {
      if (s.percent() > 0) {
        movedAway.addAll(s.from());
      }
    }
    List<String> down = new ArrayList<>();
    Map<String, Object> evidence = new LinkedHashMap<>();
    for (String p : pools) {
      if (PoolHealth.down(config, tc, health, p, evidence)) {
        down.add(p);
      }
    }
    List<String> newlyDown = new ArrayList<>(down);
    newlyDown.removeAll(movedAway);
    long id = cs.counter() + 1;
    if (!newlyDown.isEmpty()) {
      List<String> to = new ArrayList<>(pools);
      to.removeAll(down);
      to.removeAll(movedAway);
      to.removeIf(cs.drained()::contains);
      String notice = "failover:" + newlyDown + "->" + to;
      if (to.isEmpty() || "manual".equals(tc.mode())) {
        if (notice.equals(sc.notice())) {
          return null;
        }
        String why = to.isEmpty() ? "no usable pool to fail over to" : "mode is manual";
        return new Outcome(
            cs.withService(name, sc.withNotice(notice)),
            "failover-needed",
            name,
            newlyDown + " down; " + why,
            Map.of("down", newlyDown, "verdicts", evidence));
      }
      SwitchRecord rec =
          Switches.start(
              "sw-" + id,
              name,
              "failover",
              newlyDown,
              to,
              now,
              SwitchDetails.conditions(
                  store.current().config(),
                  tc,
                  SwitchDetails.concat(newlyDown, to),
                  Map.of("verdicts", evidence)));
      boolean confirm = "auto-with-confirm".equals(tc.mode());
      boolean confirmSteps = confirm && "step".equals(tc.confirm());
      Ramp r =
          new Ramp(
              "ramp-" + id,
              "failover",
              "failover",
              new Shift("failover-" + id, newlyDown, to, 0),
              null,
              null,
              0,
              100,
              tc.steps(),
              -1,
              -1,
              now,
              tc.window().toMillis(),
              Ramp.RUNNING,
              confirmSteps,
              rec);
      ControlState base = cs.withCounter(id);
      ServiceControl s2 = sc.withNotice(notice);
      if (confirm) {
        Pending p =
            new Pending(
                "start",
                "fail over " + newlyDown + " to " + to,
                now,
                now + tc.confirmTimeout().toMillis(),
                r);
        return new Outcome(
            base.withService(name, s2.withPending(p)),
            "failover-proposed",
            name,
            p.summary(),
            Map.of("down", newlyDown, "to", to, "verdicts", evidence));
      }
      return transitions.startRamp(
          base,
          name,
          cfg,
          s2,
          r,
          now,
          "failover-start",
          Map.of("down", newlyDown, "to", to, "verdicts", evidence));
    }
    for (Shift s : sc.shifts()) {
      if (!s.id().startsWith("failover-") || s.percent() == 0) {
        continue;
      }
      Map<String, Object> upEvidence = new LinkedHashMap<>();
      if (!s.from().stream().allMatch(p -> PoolHealth.recovered(config, health, p, upEvidence))) {
        continue;
      }
      String notice = "failback:" + s.id();
      if ("manual".equals(tc.mode())) {
        if (notice.equals(sc.notice())) {
          return null;
        }
        return new Outcome(
            cs.withService(name, sc.withNotice(notice)),
            "failback-possible",
            name,
            s.from() + " recovered; mode is manual",
            Map.of("shift", s.id(), "verdicts", upEvidence));
      }
      SwitchRecord rec =
          Switches.start(
              "sw-" + id,
              name,
              "failback",
              s.to(),
              s.from(),
              now,
              SwitchDetails.conditions(
                  store.current().config(),
                  tc,
                  SwitchDetails.concat(s.from(), s.to()),
                  Map.of("verdicts", upEvidence)));
      boolean withConfirm = "auto-with-confirm".equals(tc.mode());
      boolean confirmSteps = withConfirm && "step".equals(tc.confirm());
      Ramp r =
          new Ramp(
              "ramp-" + id,
              "failback",
              "failback",
              s,
              null,
              null,
              s.percent(),
              0,
              tc.steps(),
              -1,
              -1,
              now,
              tc.window().toMillis(),
              Ramp.RUNNING,
              confirmSteps,
              rec);
      ControlState base = cs.withCounter(id);
      ServiceControl s2 = sc.withNotice(notice);
      if (!tc.autoFailback() || withConfirm) {
        Pending p =
            new Pending(
                "failback",
                "fail back to " + s.from(),
                now,
                now + tc.confirmTimeout().toMillis(),
                r);
        return new Outcome(
            base.withService(name, s2.withPending(p)),
            "failback-proposed",
            name,
            p.summary(),
            Map.of("shift", s.id(), "verdicts", upEvidence));
      }
      ServiceControl without = s2.withShifts(sc.shifts().stream().filter(x -> x != s).toList());
      return transitions.startRamp(
          base,
          name,
          cfg,
          without,
          r,
          now,
          "failback-start",
          Map.of("shift", s.id(), "verdicts", upEvidence));
    }
    return null;
  }
}
