package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.audit.FileAuditLog;
import io.sluice.core.config.DomainNames;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.control.ServiceStatus;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.HealthView;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.DurableLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The traffic controller and the {@link ControlPlane} implementation. Operator commands and the
 * controller's own steps ({@link #tick}) are validated, turned into the next {@link ControlState},
 * published to the {@link SnapshotStore} (so answers change at once), made durable in the {@link
 * DurableLog} and audited, all before they are acknowledged. One writer at a time; the query path
 * only ever reads snapshots. Time comes from the injected {@link Ticker}, so tests step it.
 */
public final class TrafficController implements ControlPlane {
  private final SnapshotStore store;
  private final FileAuditLog audit;
  private final SwitchLog switchLog;
  private final Ticker ticker;
  private final GslbMetrics metrics;
  private final GateEvaluator gates;
  private final StateWriter writer;
  private final Transitions transitions;

  TrafficController(
      SnapshotStore store,
      DurableLog log,
      FileAuditLog audit,
      SwitchLog switchLog,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      ObjectMapper json)
      throws IOException {
    this.store = store;
    this.audit = audit;
    this.switchLog = switchLog;
    this.ticker = ticker;
    this.metrics = metrics;
    this.gates = new GateEvaluator(external);
    this.transitions = new Transitions(metrics);
    this.writer = new StateWriter(store, log, audit, switchLog, ticker, metrics, json);
  }

  /** The durable state now in effect. */
  public ControlState state() {
    return writer.state();
  }

  // ---------------------------------------------------------------- operator commands

  @Override
  public CommandResult setWeights(
      Actor actor,
      String service,
      Map<String, Integer> weights,
      boolean ramp,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          if (weights == null || weights.isEmpty()) {
            throw CommandRejectedException.invalid(
                "weights", "at least one pool weight is required");
          }
          Set<String> pools = poolNames(cfg);
          for (Map.Entry<String, Integer> e : weights.entrySet()) {
            String f = "weights." + e.getKey();
            if (!pools.contains(e.getKey())) {
              throw CommandRejectedException.invalid(
                  f,
                  "pool '" + e.getKey() + "' is not a pool of " + name + " (pools: " + pools + ")");
            }
            if (e.getValue() == null || e.getValue() < 0 || e.getValue() > 65535) {
              throw CommandRejectedException.invalid(f, "must be 0..65535, was " + e.getValue());
            }
          }
          ServiceControl sc = cs.service(name);
          Map<String, Integer> current = effectiveWeights(sc, cfg);
          Map<String, Integer> target = new HashMap<>(current);
          target.putAll(weights);
          if (target.values().stream().allMatch(w -> w == 0)) {
            throw CommandRejectedException.invalid(
                "weights", "weights would all be zero: no pool could be chosen");
          }
          Map<String, Object> d = Map.of("weights", weights, "ramp", ramp);
          if (!ramp) {
            if (sc.ramp() != null && sc.ramp().toWeights() != null) {
              throw CommandRejectedException.conflict(
                  name + " has a weights ramp in progress; abort or roll it back first");
            }
            ServiceControl next = sc.withWeights(target);
            if (!sc.shifting()) {
              next = next.markStable(cs.revision() + 1);
            }
            return new Outcome(cs.withService(name, next), "set-weights", name, "weights set", d);
          }
          if (sc.ramp() != null || sc.drill() != null) {
            throw CommandRejectedException.conflict(
                name + " already has a " + (sc.ramp() != null ? "ramp" : "drill") + " in progress");
          }
          long id = cs.counter() + 1;
          TrafficConfig tc = cfg.traffic();
          SwitchRecord rec =
              Switches.start(
                  "sw-" + id,
                  name,
                  "weights",
                  List.copyOf(current.keySet()),
                  List.copyOf(weights.keySet()),
                  now,
                  recordDetails(
                      tc, current.keySet(), Map.of("fromWeights", current, "toWeights", target)));
          Ramp r =
              new Ramp(
                  "ramp-" + id,
                  "weights",
                  "weights",
                  null,
                  current,
                  target,
                  0,
                  100,
                  tc.steps(),
                  -1,
                  -1,
                  now,
                  tc.window().toMillis(),
                  Ramp.RUNNING,
                  false,
                  rec);
          return transitions.startRamp(
              cs.withCounter(id), name, cfg, sc.withPending(null), r, now, "ramp-start", d);
        });
  }

  @Override
  public CommandResult startMove(
      Actor actor,
      String service,
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          Set<String> pools = poolNames(cfg);
          CommandChecks.pools("from", from, pools, name);
          CommandChecks.pools("to", to, pools, name);
          for (int i = 0; i < to.size(); i++) {
            if (from.contains(to.get(i))) {
              throw CommandRejectedException.invalid(
                  "to[" + i + "]", "pool '" + to.get(i) + "' is also in from");
            }
          }
          List<Integer> st = steps == null || steps.isEmpty() ? cfg.traffic().steps() : steps;
          CommandChecks.steps(st);
          ServiceControl sc = cs.service(name);
          if (sc.ramp() != null || sc.drill() != null) {
            throw CommandRejectedException.conflict(
                name
                    + " already has a "
                    + (sc.ramp() != null ? "ramp" : "drill")
                    + " in progress; roll back or abort it first");
          }
          long id = cs.counter() + 1;
          TrafficConfig tc = cfg.traffic();
          // Moving back what a settled shift moved ramps that shift down instead of stacking a
          // second one against it.
          Shift reverse = null;
          for (Shift s : sc.shifts()) {
            if (Set.copyOf(s.from()).equals(Set.copyOf(to))
                && Set.copyOf(s.to()).equals(Set.copyOf(from))) {
              reverse = s;
            }
          }
          SwitchRecord rec =
              Switches.start(
                  "sw-" + id,
                  name,
                  "maintenance",
                  from,
                  to,
                  now,
                  recordDetails(tc, concat(from, to), Map.of()));
          Ramp r;
          ServiceControl base = sc.withPending(null);
          if (reverse != null) {
            Shift rs = reverse;
            base = base.withShifts(sc.shifts().stream().filter(s -> s != rs).toList());
            r =
                new Ramp(
                    "ramp-" + id,
                    "move",
                    "maintenance",
                    reverse,
                    null,
                    null,
                    reverse.percent(),
                    0,
                    st,
                    -1,
                    -1,
                    now,
                    tc.window().toMillis(),
                    Ramp.RUNNING,
                    false,
                    rec);
          } else {
            r =
                new Ramp(
                    "ramp-" + id,
                    "move",
                    "maintenance",
                    new Shift("move-" + id, from, to, 0),
                    null,
                    null,
                    0,
                    100,
                    st,
                    -1,
                    -1,
                    now,
                    tc.window().toMillis(),
                    Ramp.RUNNING,
                    false,
                    rec);
          }
          return transitions.startRamp(
              cs.withCounter(id),
              name,
              cfg,
              base,
              r,
              now,
              "move-start",
              Map.of("from", from, "to", to, "steps", st));
        });
  }

  @Override
  public CommandResult abortMove(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          ServiceControl sc = cs.service(name);
          if (sc.ramp() == null) {
            throw CommandRejectedException.conflict(name + " has no ramp in progress");
          }
          Ramp r = sc.ramp();
          SwitchRecord rec = Switches.step(r.record(), "aborted", r.percent(r.index()), now, null);
          rec = Switches.finish(rec, "aborted", now, Map.of());
          ServiceControl next = Transitions.settle(sc, r).withPending(null);
          next =
              Transitions.endShift(next.markStable(cs.revision() + 1), cfg, now)
                  .withCooldownUntil(now + cfg.traffic().cooldown().toMillis());
          return new Outcome(
              cs.withService(name, next),
              "move-abort",
              name,
              "ramp aborted at " + r.percent(r.index()) + "%",
              Map.of("ramp", r.id()),
              List.of(rec));
        });
  }

  @Override
  public CommandResult rollback(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          List<String> names;
          if (service == null) {
            names = new ArrayList<>(PlanProjection.services(store.current().config()).keySet());
          } else {
            names = List.of(serviceName(service));
            serviceConfig(names.get(0));
          }
          ControlState next = cs;
          List<SwitchRecord> finished = new ArrayList<>();
          List<String> touched = new ArrayList<>();
          for (String name : names) {
            ServiceConfig cfg = serviceConfig(name);
            ServiceControl sc = cs.service(name);
            boolean atStable =
                !sc.shifting()
                    && sc.pending() == null
                    && sc.weights().equals(sc.stableWeights())
                    && sc.shifts().equals(sc.stableShifts());
            if (atStable) {
              continue;
            }
            touched.add(name);
            for (SwitchRecord r : Transitions.activeRecords(sc)) {
              finished.add(
                  Switches.finish(
                      Switches.step(r, "rolled-back", 0, now, null),
                      "rolled-back",
                      now,
                      Map.of("rollbackBy", "operator")));
            }
            ServiceControl restored = sc.restoreStable();
            restored = Transitions.beginShift(restored, now);
            restored =
                Transitions.endShift(restored, cfg, now)
                    .withCooldownUntil(now + cfg.traffic().cooldown().toMillis());
            next = next.withService(name, restored);
          }
          if (touched.isEmpty()) {
            return new Outcome(
                cs, "rollback", service, "already at the last stable plan", Map.of());
          }
          return new Outcome(
              next,
              "rollback",
              service,
              "rolled back " + touched,
              Map.of("services", touched),
              finished);
        });
  }

  @Override
  public CommandResult freeze(
      Actor actor, String service, boolean frozen, String reason, String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String action = frozen ? "freeze" : "unfreeze";
          if (service == null) {
            if (cs.frozen() == frozen) {
              return new Outcome(
                  cs, action, null, "already " + (frozen ? "frozen" : "unfrozen"), Map.of());
            }
            return new Outcome(
                cs.withFrozen(frozen), action, null, "global " + action, Map.of("scope", "global"));
          }
          String name = serviceName(service);
          serviceConfig(name);
          ServiceControl sc = cs.service(name);
          if (sc.frozen() == frozen) {
            return new Outcome(
                cs, action, name, "already " + (frozen ? "frozen" : "unfrozen"), Map.of());
          }
          return new Outcome(
              cs.withService(name, sc.withFrozen(frozen)),
              action,
              name,
              name + " " + action,
              Map.of("scope", "service"));
        });
  }

  @Override
  public CommandResult confirm(
      Actor actor, String service, boolean accept, String reason, String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          ServiceControl sc = cs.service(name);
          boolean paused = sc.ramp() != null && Ramp.PAUSED.equals(sc.ramp().state());
          if (sc.pending() == null && !paused) {
            throw CommandRejectedException.conflict(name + " has nothing waiting for confirmation");
          }
          return accept
              ? transitions.acceptPending(cs, name, cfg, now)
              : transitions.rejectPending(cs, name, cfg, now, "rejected by operator");
        });
  }

  @Override
  public CommandResult startDrill(
      Actor actor,
      String service,
      List<String> to,
      double percent,
      long seconds,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          Set<String> pools = poolNames(cfg);
          CommandChecks.pools("to", to, pools, name);
          double pct = percent == 0 ? 5 : percent;
          if (Double.isNaN(pct) || pct <= 0 || pct > 50) {
            throw CommandRejectedException.invalid(
                "percent", "must be above 0 and at most 50, was " + percent);
          }
          if (seconds < 1 || seconds > 86_400) {
            throw CommandRejectedException.invalid("seconds", "must be 1..86400, was " + seconds);
          }
          List<String> from = new ArrayList<>(pools);
          from.removeAll(to);
          if (from.isEmpty()) {
            throw CommandRejectedException.invalid(
                "to", "a drill needs at least one pool of " + name + " left outside 'to'");
          }
          ServiceControl sc = cs.service(name);
          if (sc.ramp() != null || sc.drill() != null) {
            throw CommandRejectedException.conflict(
                name + " already has a " + (sc.ramp() != null ? "ramp" : "drill") + " in progress");
          }
          long id = cs.counter() + 1;
          SwitchRecord rec =
              Switches.start(
                  "sw-" + id,
                  name,
                  "drill",
                  from,
                  to,
                  now,
                  recordDetails(
                      cfg.traffic(), concat(from, to), Map.of("timeBoxSeconds", seconds)));
          rec = Switches.step(rec, "step", pct, now, null);
          Drill d =
              new Drill(
                  "drill-" + id,
                  new Shift("drill-" + id, from, to, pct),
                  now,
                  now + seconds * 1000,
                  rec);
          ServiceControl next = Transitions.beginShift(sc.withDrill(d), now);
          return new Outcome(
              cs.withCounter(id).withService(name, next),
              "drill-start",
              name,
              "drill of " + pct + "% to " + to + " for " + seconds + " s",
              Map.of("to", to, "percent", pct, "seconds", seconds));
        });
  }

  @Override
  public CommandResult stopDrill(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          if (cs.service(name).drill() == null) {
            throw CommandRejectedException.conflict(name + " has no drill in progress");
          }
          return transitions.endDrill(cs, name, cfg, now, "stopped", null);
        });
  }

  @Override
  public CommandResult drain(
      Actor actor, String target, boolean drained, String reason, String requestId)
      throws CommandRejectedException {
    return writer.command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          if (target == null || target.isBlank()) {
            throw CommandRejectedException.invalid(
                "target", "is required: a pool name or pool/endpoint");
          }
          SluiceConfig config = store.current().config();
          int slash = target.indexOf('/');
          String pool = slash < 0 ? target : target.substring(0, slash);
          PoolConfig pc = config.pools().get(pool);
          if (pc == null) {
            throw CommandRejectedException.invalid(
                "target", "unknown pool '" + pool + "' (pools: " + config.pools().keySet() + ")");
          }
          if (slash >= 0
              && pc.endpoints().stream()
                  .noneMatch(e -> PoolConfig.endpointKey(pool, e).equals(target))) {
            throw CommandRejectedException.invalid(
                "target",
                "pool '" + pool + "' has no endpoint '" + target.substring(slash + 1) + "'");
          }
          Set<String> set = new HashSet<>(cs.drained());
          String action = drained ? "drain" : "undrain";
          if (!(drained ? set.add(target) : set.remove(target))) {
            return new Outcome(
                cs,
                action,
                null,
                target + " already " + (drained ? "drained" : "undrained"),
                Map.of());
          }
          return new Outcome(
              cs.withDrained(set), action, null, action + " " + target, Map.of("target", target));
        });
  }

  // ---------------------------------------------------------------- queries

  @Override
  public List<ServiceStatus> status() {
    ControlState cs = writer.state();
    Snapshot snap = store.current();
    List<ServiceStatus> out = new ArrayList<>();
    for (Map.Entry<String, ServiceConfig> e : PlanProjection.services(snap.config()).entrySet()) {
      ServiceConfig cfg = e.getValue();
      ServiceControl sc = cs.service(e.getKey());
      ServicePlan plan = PlanProjection.plan(sc, cfg);
      out.add(
          new ServiceStatus(
              e.getKey(),
              cfg.traffic().mode(),
              sc.frozen(),
              cs.frozen(),
              PlanProjection.shares(plan, cfg, cs.drained()),
              StatusMaps.ramp(sc.ramp()),
              StatusMaps.drill(sc.drill()),
              StatusMaps.pending(sc.pending()),
              PlanProjection.servedTtl(plan, cfg),
              sc.stableRevision()));
    }
    return out;
  }

  @Override
  public List<AuditEvent> audit(AuditQuery query) {
    return audit.query(query);
  }

  @Override
  public List<SwitchRecord> switches(String service) {
    Map<String, SwitchRecord> all = new LinkedHashMap<>(switchLog.byId());
    for (Map.Entry<String, ServiceControl> e : writer.state().services().entrySet()) {
      for (SwitchRecord r : Transitions.activeRecords(e.getValue())) {
        all.remove(r.id());
        all.put(r.id(), r);
      }
    }
    List<SwitchRecord> out = new ArrayList<>();
    for (SwitchRecord r : all.values()) {
      if (service == null || r.service().equals(serviceNameOrRaw(service))) {
        out.add(r);
      }
    }
    out.sort((a, b) -> Long.compare(b.startedMillis(), a.startedMillis()));
    return out;
  }

  @Override
  public Optional<SwitchRecord> switchRecord(String id) {
    return switches(null).stream().filter(r -> r.id().equals(id)).findFirst();
  }

  // ---------------------------------------------------------------- the controller's own steps

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
            writer.controllerStep(staleProposal(name, health, snap.config()));
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
   * Withdraws a proposed failover whose pools are no longer all down, or a proposed failback whose
   * pools are not recovered any more: confirming it later would act on a condition that is gone.
   */
  private Outcome staleProposal(String name, HealthView health, SluiceConfig config) {
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
                .allMatch(pool -> PoolHealth.down(config, health, pool, evidence))
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
    List<String> pools = new ArrayList<>(poolNames(cfg));
    Set<String> movedAway = new HashSet<>();
    for (Shift s : sc.shifts()) {
      if (s.percent() > 0) {
        movedAway.addAll(s.from());
      }
    }
    List<String> down = new ArrayList<>();
    Map<String, Object> evidence = new LinkedHashMap<>();
    for (String p : pools) {
      if (PoolHealth.down(config, health, p, evidence)) {
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
              recordDetails(tc, concat(newlyDown, to), Map.of("verdicts", evidence)));
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
              recordDetails(tc, concat(s.from(), s.to()), Map.of("verdicts", upEvidence)));
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

  // ---------------------------------------------------------------- helpers

  private String serviceName(String service) throws CommandRejectedException {
    if (service == null || service.isBlank()) {
      throw CommandRejectedException.invalid("service", "is required");
    }
    return serviceNameOrRaw(service);
  }

  private static String serviceNameOrRaw(String service) {
    String s = DomainNames.canonical(service);
    return s.endsWith(".") ? s : s + ".";
  }

  private ServiceConfig serviceConfig(String name) throws CommandRejectedException {
    Map<String, ServiceConfig> all = PlanProjection.services(store.current().config());
    ServiceConfig cfg = all.get(name);
    if (cfg == null) {
      throw CommandRejectedException.invalid(
          "service", "unknown service '" + name + "' (services: " + all.keySet() + ")");
    }
    return cfg;
  }

  private static Set<String> poolNames(ServiceConfig cfg) {
    Set<String> out = new LinkedHashSet<>();
    for (ServicePoolConfig sp : cfg.pools()) {
      out.add(sp.pool());
    }
    return out;
  }

  private static Map<String, Integer> effectiveWeights(ServiceControl sc, ServiceConfig cfg) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (ServicePoolConfig sp : cfg.pools()) {
      out.put(sp.pool(), sc.weights().getOrDefault(sp.pool(), sp.weight()));
    }
    return out;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** What a switch record keeps of its conditions: mode, steps, window, gates, regions touched. */
  private Map<String, Object> recordDetails(
      TrafficConfig tc, java.util.Collection<String> pools, Map<String, Object> extra) {
    Map<String, Object> d = new LinkedHashMap<>(extra);
    SluiceConfig config = store.current().config();
    java.util.TreeSet<String> regions = new java.util.TreeSet<>();
    for (String p : pools) {
      PoolConfig pc = config.pools().get(p);
      if (pc != null && pc.region() != null) {
        regions.add(pc.region());
      }
    }
    d.put("affectedRegions", List.copyOf(regions));
    d.put("mode", tc.mode());
    d.put("steps", tc.steps());
    d.put("windowMillis", tc.window().toMillis());
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("requireUp", tc.gates().requireUp());
    g.put("maxErrorRate", tc.gates().maxErrorRate());
    if (tc.gates().maxP99Millis() != null) {
      g.put("maxP99Millis", tc.gates().maxP99Millis());
    }
    if (tc.gates().external() != null) {
      g.put("externalQuery", tc.gates().external().query());
      g.put("externalMax", tc.gates().external().max());
    }
    d.put("gates", g);
    return d;
  }
}
