package io.sluice.core.traffic;

import io.sluice.core.config.ConfirmScope;
import io.sluice.core.config.ConfirmTimeout;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.GateConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.ShiftMode;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.HealthView;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Leadership;
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
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * What the controller does on its own, once per tick and service: ends drills at their time box or
 * on a failing gate, withdraws stale proposals, applies the confirmation timeout policy, advances
 * or rolls back ramps by their windows and gates, restores the long TTL, and detects failover and
 * failback from the health verdicts. Only while this node {@link Leadership leads}: a follower
 * publishes verdicts without reacting to them and keeps its gate evidence counting, so that it
 * continues a step where the leader left it when it takes over.
 */
final class ControllerSteps {
  private final SnapshotStore store;
  private final StateWriter writer;
  private final Transitions transitions;
  private final GateEvaluator gates;
  private final GslbMetrics metrics;
  private final Ticker ticker;
  private final Leadership leadership;
  // The pools' usable endpoint counts of the health view detect last read (see PoolHealth.Counts).
  private volatile PoolHealth.Counts counts;

  ControllerSteps(
      SnapshotStore store,
      StateWriter writer,
      Transitions transitions,
      GateEvaluator gates,
      GslbMetrics metrics,
      Ticker ticker,
      Leadership leadership) {
    this.store = store;
    this.writer = writer;
    this.transitions = transitions;
    this.gates = gates;
    this.metrics = metrics;
    this.ticker = ticker;
    this.leadership = leadership;
  }

  /**
   * One controller step over every service: drill time boxes and gates, confirmation timeouts, ramp
   * gates and windows, TTL restore, and failover/failback detection from the health verdicts. Gates
   * (which may call an external metric over HTTP) are evaluated before the writer lock is taken, so
   * a slow metric never delays an operator's rollback. On a follower it only starts counting the
   * gate evidence of what the leader began (the state arrives from the leader), so that a takeover
   * judges the step in progress on the evidence since it began, not from zero.
   */
  public void tick() {
    if (!leadership.leads()) {
      writer.locked(
          () -> {
            for (String name : writer.state().services().keySet()) {
              beginEvidence(name);
            }
          });
      forgetEndedEvidence();
      return;
    }
    maintenanceSteps();
    Snapshot snap = store.current();
    ControlState cs = writer.state();
    Map<String, ServiceConfig> services = PlanProjection.services(snap.config());
    Map<String, GateResult> results = new HashMap<>();
    for (Map.Entry<String, ServiceConfig> e : services.entrySet()) {
      ServiceControl sc = cs.service(e.getKey());
      GateConfig g = e.getValue().traffic().gates();
      if (sc.ramp() != null && sc.ramp().state() != Ramp.State.PAUSED) {
        String epoch = GateEvaluator.epoch(sc.ramp());
        results.put(
            epoch, gates.evaluate(snap.config(), snap.health(), sc.ramp().targets(), g, epoch));
      }
      if (sc.drill() != null) {
        results.put(
            sc.drill().id(),
            gates.evaluate(
                snap.config(), snap.health(), sc.drill().shift().to(), g, sc.drill().id()));
      }
      Pending p = sc.pending();
      if (p != null && p.proposal() != null) {
        // Counting starts when the condition was proposed (a recovery): a confirmation is judged
        // on what happened since, never on the outage before it.
        String epoch = GateEvaluator.epoch(p);
        gates.begin(snap.config(), snap.health(), p.proposal().targets(), epoch);
      }
    }
    for (Map.Entry<String, ServiceConfig> e : services.entrySet()) {
      String name = e.getKey();
      ServiceConfig cfg = e.getValue();
      // The lock is fair and taken per service, so an operator's command waits for at most one
      // service's step, however many services the controller is moving.
      writer.locked(
          () -> {
            if (!leadership.leads()) {
              // Leadership was lost mid-tick: the new leader takes it from the shared state.
              beginEvidence(name);
              return;
            }
            long now = ticker.currentTimeMillis();
            HealthView health = store.current().health();
            writer.controllerStep(drillStep(name, cfg, results, now));
            writer.controllerStep(staleProposal(writer.state(), name, cfg, health, snap.config()));
            writer.controllerStep(pendingTimeout(name, cfg, now));
            writer.controllerStep(rampStep(name, cfg, results, now));
            writer.controllerStep(ttlRestore(name, cfg, now));
            writer.controllerStep(detect(writer.state(), name, cfg, health, snap.config(), now));
            beginEvidence(name);
          });
    }
    forgetEndedEvidence();
  }

  /**
   * Starts the maintenance windows whose start has come and ends those whose end has, each in its
   * own change, before the services' steps: a window's freeze holds from the very tick it starts.
   */
  private void maintenanceSteps() {
    for (MaintenanceWindow w : writer.state().maintenance()) {
      writer.locked(
          () -> {
            if (!leadership.leads()) {
              return;
            }
            ControlState cs = writer.state();
            MaintenanceWindow current = cs.window(w.id());
            if (current != null) {
              writer.controllerStep(
                  Maintenance.step(
                      cs, store.current().config(), current, ticker.currentTimeMillis()));
            }
          });
    }
  }

  /**
   * Drops the evidence counts of steps, drills and proposals that are over. Taken from the state
   * after this tick's steps, under the writer lock, so a step an operator began meanwhile keeps its
   * counts.
   */
  private void forgetEndedEvidence() {
    writer.locked(
        () -> {
          Set<String> epochs = new HashSet<>();
          for (ServiceControl sc : writer.state().services().values()) {
            epochs.addAll(evidenceEpochs(sc).keySet());
          }
          gates.retain(epochs);
        });
  }

  /**
   * Publishes a batch of verdicts with the controller's reaction to it in the same snapshot (see
   * {@link StateWriter#healthStep}): what a tick would do about the new verdicts (withdraw a stale
   * proposal, start or propose a failover or failback) and, for every service whose answers the
   * verdicts change, the short TTL from the first of those answers. Runs under the writer lock, so
   * no command or tick interleaves; gates are left to the tick that the new health view schedules.
   * A follower publishes the verdicts alone: the leader's reaction reaches it through the shared
   * state.
   */
  HealthPublisher.Published publishHealth(
      UnaryOperator<HealthView> change, Consumer<HealthPublisher.Published> recorded) {
    HealthView current = store.current().health();
    if (!leadership.leads() || !verdictsDiffer(current, change.apply(current))) {
      // New evidence with the same verdicts (latency, result counts): nothing to react to, and no
      // reason to wait for the writer lock.
      return HealthPublisher.direct(store).publish(change, recorded);
    }
    HealthPublisher.Published[] out = new HealthPublisher.Published[1];
    writer.locked(
        () -> {
          Snapshot snap = store.current();
          HealthView before = snap.health();
          HealthView after = change.apply(before);
          List<Outcome> reaction = new ArrayList<>();
          if (after != before && leadership.leads()) {
            long now = ticker.currentTimeMillis();
            ControlState cs = writer.state();
            for (Map.Entry<String, ServiceConfig> e :
                PlanProjection.services(snap.config()).entrySet()) {
              String name = e.getKey();
              ServiceConfig cfg = e.getValue();
              Outcome stale = staleProposal(cs, name, cfg, after, snap.config());
              cs = react(reaction, stale, cs);
              cs = react(reaction, detect(cs, name, cfg, after, snap.config(), now), cs);
              cs =
                  react(
                      reaction, compressTtl(cs, name, cfg, snap.config(), before, after, now), cs);
            }
          }
          out[0] = writer.healthStep(change, recorded, reaction);
          if (!reaction.isEmpty()) {
            for (String name : writer.state().services().keySet()) {
              beginEvidence(name);
            }
          }
        });
    return out[0];
  }

  private static boolean verdictsDiffer(HealthView a, HealthView b) {
    if (a == b) {
      return false;
    }
    for (String key : a.all().keySet()) {
      if (a.verdict(key) != b.verdict(key)) {
        return true;
      }
    }
    for (String key : b.all().keySet()) {
      if (a.verdict(key) != b.verdict(key)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Adds {@code o} (when there is one) to {@code reaction} at its own revision, as a tick's steps
   * are each one journal record; returns the state it leads to.
   */
  private static ControlState react(List<Outcome> reaction, Outcome o, ControlState cs) {
    if (o == null) {
      return cs;
    }
    Outcome revised = o.revised();
    reaction.add(revised);
    return revised.next();
  }

  /**
   * Verdicts that change which endpoints of a service may be handed out change its answers, whether
   * or not the controller shifts traffic (manual mode, a proposal waiting for confirmation, an
   * endpoint of a pool that stays up, a recovery, fail-open): clients must pick the change up
   * quickly, so the short TTL is served from the first changed answer until every answer handed out
   * before it has expired, as after a shift.
   */
  private static Outcome compressTtl(
      ControlState cs,
      String name,
      ServiceConfig cfg,
      SluiceConfig config,
      HealthView before,
      HealthView after,
      long now) {
    List<String> changed = new ArrayList<>();
    for (String pool : PlanProjection.poolNames(cfg)) {
      PoolConfig pc = config.pools().get(pool);
      if (pc == null) {
        continue;
      }
      for (EndpointConfig ep : pc.endpoints()) {
        String key = PoolConfig.endpointKey(pool, ep);
        if (before.verdict(key).usable() != after.verdict(key).usable()) {
          changed.add(key);
        }
      }
    }
    if (changed.isEmpty()) {
      return null;
    }
    ServiceControl sc = cs.service(name);
    ServiceControl next = Transitions.compress(sc, cfg, now);
    if (next.equals(sc)) {
      return null; // a shift in progress already serves the short TTL
    }
    long ttl = cfg.traffic().shiftTtl();
    return new Outcome(
        cs.withService(name, next),
        "ttl-compressed",
        name,
        "answers changed with the verdicts of " + changed + ": serving TTL " + ttl + " s",
        Map.of("endpoints", changed, "ttl", ttl));
  }

  /**
   * Starts counting gate evidence for whatever of {@code service} began just now (a step, a pause,
   * a drill, a proposal), so that nothing from before it counts and nothing after it is missed.
   */
  void beginEvidence(String service) {
    Snapshot snap = store.current();
    evidenceEpochs(writer.state().service(service))
        .forEach((epoch, targets) -> gates.begin(snap.config(), snap.health(), targets, epoch));
  }

  /**
   * The gate-evidence epochs alive in {@code sc} (its ramp's current step, its drill, its
   * proposal), each with the pools its gates judge.
   */
  private static Map<String, List<String>> evidenceEpochs(ServiceControl sc) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (sc.ramp() != null) {
      out.put(GateEvaluator.epoch(sc.ramp()), sc.ramp().targets());
    }
    if (sc.drill() != null) {
      out.put(sc.drill().id(), sc.drill().shift().to());
    }
    Pending p = sc.pending();
    if (p != null && p.proposal() != null) {
      out.put(GateEvaluator.epoch(p), p.proposal().targets());
    }
    return out;
  }

  /**
   * The gates an operator's confirmation of a proposed failover or failback is judged by: the
   * targets' results since it was proposed (the recovery), never the outage before. Null when
   * nothing is to be judged: a paused ramp's retried step and a ramp's next step are judged by
   * their own gates over their own evidence.
   */
  GateResult confirmGates(String name) {
    Snapshot snap = store.current();
    ServiceConfig cfg = PlanProjection.services(snap.config()).get(name);
    if (cfg == null) {
      return null;
    }
    Pending p = writer.state().service(name).pending();
    if (p == null || p.proposal() == null) {
      return null;
    }
    return gates.evaluate(
        snap.config(),
        snap.health(),
        p.proposal().targets(),
        cfg.traffic().gates(),
        GateEvaluator.epoch(p));
  }

  private Outcome drillStep(
      String name, ServiceConfig cfg, Map<String, GateResult> results, long now) {
    ControlState cs = writer.state();
    Drill d = cs.service(name).drill();
    if (d == null) {
      return null;
    }
    GateResult g = results.get(d.id());
    if (g != null && g.failed()) {
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
      ControlState cs, String name, ServiceConfig cfg, HealthView health, SluiceConfig config) {
    TrafficConfig traffic = cfg.traffic();
    ServiceControl sc = cs.service(name);
    Pending p = sc.pending();
    if (p == null || p.proposal() == null) {
      return null;
    }
    Map<String, Object> evidence = new LinkedHashMap<>();
    boolean holds =
        p.kind() == Pending.Kind.START
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
    if (p.heldByFreeze() && cs.automationFrozen(name)) {
      return null; // its timeout starts again at unfreeze
    }
    if (cfg.traffic().onConfirmTimeout() == ConfirmTimeout.PROCEED) {
      if (cs.automationFrozen(name)) {
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
    if (r == null || r.state() == Ramp.State.PAUSED) {
      return null;
    }
    GateResult g = results.get(GateEvaluator.epoch(r));
    if (g == null) {
      return null; // this step began after this tick's gates were measured
    }
    if (g.failed()) {
      int back = r.lastGood();
      Ramp paused = r.at(back, now).withState(Ramp.State.PAUSED);
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
      // A paused ramp waits for a person: it is shown as pending until confirmed (retry the next
      // step) or rejected (roll back), and never times out by itself.
      Pending waiting =
          Pending.of(
              Pending.Kind.RESUME,
              r.describe()
                  + " paused at "
                  + Ramp.percentText(r.targetPercent(back))
                  + " ("
                  + g.failure()
                  + "): confirm to retry, reject to roll back",
              now,
              Long.MAX_VALUE,
              null);
      return new Outcome(
          cs.withService(name, sc.withRamp(paused).withPending(waiting)),
          "gate-failed",
          name,
          g.failure(),
          d);
    }
    if (!g.passed()) {
      return null; // not enough evidence since the step began: the step waits for it
    }
    if (r.state() != Ramp.State.RUNNING || now - r.stepSinceMillis() < r.windowMillis()) {
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
          r.describe() + " complete: " + Ramp.percentText(r.targetPercent(r.index())),
          Map.of("ramp", r.id(), "gates", g.measured()),
          List.of(rec));
    }
    if (cs.automationFrozen(name)) {
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
      Ramp waiting = good.withState(Ramp.State.AWAITING_CONFIRM);
      Pending p =
          Pending.of(
              Pending.Kind.STEP,
              "advance " + r.describe() + " to " + r.stepText(r.index() + 1),
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
      ControlState cs,
      String name,
      ServiceConfig cfg,
      HealthView health,
      SluiceConfig config,
      long now) {
    ServiceControl sc = cs.service(name);
    TrafficConfig tc = cfg.traffic();
    if (sc.ramp() != null
        || sc.drill() != null
        || sc.pending() != null
        || now < sc.cooldownUntilMillis()) {
      return null;
    }
    boolean frozen = cs.automationFrozen(name);
    ShiftMode mode = tc.mode();
    List<String> pools = new ArrayList<>(cfg.pools().size());
    for (ServicePoolConfig sp : cfg.pools()) {
      if (!pools.contains(sp.pool())) {
        pools.add(sp.pool());
      }
    }
    Set<String> movedAway = new HashSet<>();
    for (Shift s : sc.shifts()) {
      if (s.percent() > 0) {
        movedAway.addAll(s.from());
      }
    }
    List<String> down = new ArrayList<>();
    Map<String, Object> evidence = new LinkedHashMap<>();
    PoolHealth.Counts counts = PoolHealth.Counts.of(this.counts, config, health);
    this.counts = counts;
    for (String p : pools) {
      if (PoolHealth.down(config, tc, counts, p, evidence)) {
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
      if (to.isEmpty() || mode == ShiftMode.MANUAL) {
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
              Ramp.Kind.FAILOVER.trigger(),
              newlyDown,
              to,
              now,
              SwitchDetails.conditions(
                  store.current().config(),
                  tc,
                  tc.steps(),
                  SwitchDetails.concat(newlyDown, to),
                  Map.of("verdicts", evidence)));
      boolean confirm = mode == ShiftMode.AUTO_WITH_CONFIRM;
      Ramp r =
          Ramp.shift(
              "ramp-" + id,
              Ramp.Kind.FAILOVER,
              new Shift("failover-" + id, newlyDown, to, 0),
              0,
              100,
              tc.steps(),
              now,
              tc.window().toMillis(),
              confirm && tc.confirm() == ConfirmScope.STEP,
              rec);
      ControlState base = cs.withCounter(id);
      ServiceControl s2 = sc.withNotice(notice);
      Map<String, Object> d = Map.of("down", newlyDown, "to", to, "verdicts", evidence);
      String summary = "fail over " + newlyDown + " to " + to;
      if (confirm || frozen) {
        return propose(
            base,
            name,
            s2,
            Pending.Kind.START,
            summary,
            r,
            tc,
            now,
            frozen && !confirm,
            "failover",
            d);
      }
      return transitions.startRamp(base, name, cfg, s2, r, now, "failover-start", d);
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
      if (mode == ShiftMode.MANUAL) {
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
              Ramp.Kind.FAILBACK.trigger(),
              s.to(),
              s.from(),
              now,
              SwitchDetails.conditions(
                  store.current().config(),
                  tc,
                  tc.steps(),
                  SwitchDetails.concat(s.from(), s.to()),
                  Map.of("verdicts", upEvidence)));
      boolean withConfirm = mode == ShiftMode.AUTO_WITH_CONFIRM;
      Ramp r =
          Ramp.shift(
              "ramp-" + id,
              Ramp.Kind.FAILBACK,
              s,
              s.percent(),
              0,
              tc.steps(),
              now,
              tc.window().toMillis(),
              withConfirm && tc.confirm() == ConfirmScope.STEP,
              rec);
      ControlState base = cs.withCounter(id);
      ServiceControl s2 = sc.withNotice(notice);
      Map<String, Object> d = Map.of("shift", s.id(), "verdicts", upEvidence);
      if (!tc.autoFailback() || withConfirm || frozen) {
        return propose(
            base,
            name,
            s2,
            Pending.Kind.FAILBACK,
            "fail back to " + s.from(),
            r,
            tc,
            now,
            frozen && tc.autoFailback() && !withConfirm,
            "failback",
            d);
      }
      ServiceControl without = s2.withShifts(sc.shifts().stream().filter(x -> x != s).toList());
      return transitions.startRamp(base, name, cfg, without, r, now, "failback-start", d);
    }
    return null;
  }

  /**
   * A failover or failback that waits for an operator: proposed (auto-with-confirm, or a failback
   * without autoFailback), or held because the service is frozen when the controller would have
   * started it itself. Either way it is audited once and shown as pending until confirmed, rejected
   * or withdrawn; a held one is never started by the unfreeze alone.
   */
  private static Outcome propose(
      ControlState cs,
      String name,
      ServiceControl sc,
      Pending.Kind kind,
      String summary,
      Ramp r,
      TrafficConfig tc,
      long now,
      boolean held,
      String what,
      Map<String, Object> details) {
    long expires = now + tc.confirmTimeout().toMillis();
    Pending p =
        held
            ? new Pending(kind, summary + Pending.HELD_SUFFIX, now, expires, r, true)
            : Pending.of(kind, summary, now, expires, r);
    Map<String, Object> d = new LinkedHashMap<>(details);
    if (held) {
      d.put("heldByFreeze", true);
    }
    return new Outcome(
        cs.withService(name, sc.withPending(p)),
        what + (held ? "-held" : "-proposed"),
        name,
        p.summary(),
        d);
  }
}
