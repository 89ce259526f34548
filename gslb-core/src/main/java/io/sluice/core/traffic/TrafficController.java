package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.audit.FileAuditLog;
import io.sluice.core.config.DomainNames;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.control.MaintenanceKind;
import io.sluice.core.control.MaintenanceRequest;
import io.sluice.core.control.ServiceStatus;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Leadership;
import io.sluice.core.spi.ShareEstimator;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.store.DurableLog;
import io.sluice.core.store.SharedStateLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The traffic controller and the {@link ControlPlane} implementation: validates operator commands
 * and runs the controller's own steps ({@link #tick}, see {@link ControllerSteps}). Every change
 * becomes the next {@link ControlState}, made durable in the {@link DurableLog} together with its
 * audit event, then published to the {@link SnapshotStore} and acknowledged, by one {@link
 * StateWriter}; the query path only ever reads snapshots. Time comes from the injected {@link
 * Ticker}, so tests step it. Its own steps run only while {@link Leadership} says this node leads;
 * operator commands run on every node.
 */
public final class TrafficController implements ControlPlane {
  private final SnapshotStore store;
  private final FileAuditLog audit;
  private final SwitchLog switchLog;
  private final StateWriter writer;
  private final Transitions transitions;
  private final ControllerSteps steps;
  private final ShareEstimator shares;
  private volatile Runnable membersListener = () -> {};
  // The members the listener was last told of; guarded by this.
  private Map<String, List<EndpointConfig>> announcedMembers = Map.of();
  // Announces members adopted from the cluster; created on first use. Guarded by this.
  private java.util.concurrent.ExecutorService announcer;

  TrafficController(
      SnapshotStore store,
      DurableLog log,
      FileAuditLog audit,
      SwitchLog switchLog,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      ShareEstimator shares,
      ObjectMapper json,
      SharedStateLog shared,
      Leadership leadership)
      throws IOException {
    this.store = store;
    this.shares = shares;
    this.audit = audit;
    this.switchLog = switchLog;
    this.transitions = new Transitions(metrics);
    this.writer = new StateWriter(store, log, audit, switchLog, ticker, metrics, json, shared);
    // The members restored with the state are served by whoever listens from the start.
    this.announcedMembers = writer.state().members();
    this.steps =
        new ControllerSteps(
            store, writer, transitions, new GateEvaluator(external), metrics, ticker, leadership);
    // After a restart the gates of a step in progress count the evidence from now on.
    for (String name : writer.state().services().keySet()) {
      steps.beginEvidence(name);
    }
    writer.localCommands(
        a ->
            a.kind() == LocalAction.Kind.ROLLBACK
                ? rollbackCommand(a.service())
                : freezeCommand(a.service(), true));
    // A step another node began counts its gate evidence here from the moment it arrives.
    writer.afterAdopt(
        () -> {
          for (String name : writer.state().services().keySet()) {
            steps.beginEvidence(name);
          }
          // Members another node changed are served here too, built off the writer lock: building
          // a large configuration takes a while and commands must not wait for it.
          if (!writer.state().members().equals(announcedMembersView())) {
            announcer().execute(this::announceMembers);
          }
        });
  }

  /**
   * The shared store's revision of the state in effect on this node (0 on a single node, or before
   * the first record).
   */
  public long appliedRevision() {
    return writer.appliedRevision();
  }

  /**
   * Catches up with the cluster's shared state (a linearizable read, then every record since the
   * applied one) and applies the safety actions of a cut on top; a new leader calls it before its
   * first step. Does nothing on a single node.
   *
   * @throws ClusterUnreachableException when the shared store cannot be reached
   */
  public void catchUp() {
    writer.syncWithCluster();
  }

  /** The rollbacks and freezes this node applied while cut off, not yet applied to the cluster. */
  public List<LocalAction> localActions() {
    return writer.localActions();
  }

  /** The state writer, for the cluster sync. */
  StateWriter writer() {
    return writer;
  }

  /** The durable state now in effect. */
  public ControlState state() {
    return writer.state();
  }

  @Override
  public Optional<String> storeProblem() {
    return writer.problem();
  }

  /** Retries a failed state write, so the store reports itself healthy once it can write again. */
  public void retryStore() {
    writer.retryIfUnhealthy();
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
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          rules(p -> CommandRules.weights(p, name, PlanProjection.poolNames(cfg), weights));
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
            if (!target.equals(current)) {
              // Answers change at once: the very first of them carries the short TTL, in the same
              // published state, so clients pick the change up quickly.
              next = Transitions.compress(next, cfg, now);
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
                  Ramp.Kind.WEIGHTS.trigger(),
                  List.copyOf(current.keySet()),
                  List.copyOf(weights.keySet()),
                  now,
                  SwitchDetails.conditions(
                      store.current().config(),
                      tc,
                      tc.steps(),
                      current.keySet(),
                      Map.of("fromWeights", current, "toWeights", target)));
          Ramp r =
              Ramp.weights(
                  "ramp-" + id, current, target, tc.steps(), now, tc.window().toMillis(), rec);
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
    return startMove(actor, service, from, to, steps, null, reason, requestId);
  }

  @Override
  public CommandResult startMove(
      Actor actor,
      String service,
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String region,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          SluiceConfig config = store.current().config();
          rules(
              p ->
                  CommandRules.move(
                      p,
                      name,
                      PlanProjection.poolNames(cfg),
                      config.regions().keySet(),
                      from,
                      to,
                      steps,
                      region));
          List<Integer> st = steps == null || steps.isEmpty() ? cfg.traffic().steps() : steps;
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
                && Set.copyOf(s.to()).equals(Set.copyOf(from))
                && Objects.equals(s.region(), region)) {
              reverse = s;
            }
          }
          SwitchRecord rec =
              Switches.start(
                  "sw-" + id,
                  name,
                  Ramp.Kind.MOVE.trigger(),
                  from,
                  to,
                  now,
                  SwitchDetails.conditions(
                      config,
                      tc,
                      st,
                      SwitchDetails.concat(from, to),
                      region == null ? Map.of() : Map.of("clientRegion", region)));
          Ramp r;
          ServiceControl base = sc.withPending(null);
          if (reverse != null) {
            Shift rs = reverse;
            base = base.withShifts(sc.shifts().stream().filter(s -> s != rs).toList());
            r =
                Ramp.shift(
                    "ramp-" + id,
                    Ramp.Kind.MOVE,
                    reverse,
                    reverse.percent(),
                    0,
                    st,
                    now,
                    tc.window().toMillis(),
                    false,
                    rec);
          } else {
            r =
                Ramp.shift(
                    "ramp-" + id,
                    Ramp.Kind.MOVE,
                    new Shift("move-" + id, from, to, 0, region),
                    0,
                    100,
                    st,
                    now,
                    tc.window().toMillis(),
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
              region == null
                  ? Map.of("from", from, "to", to, "steps", st)
                  : Map.of("from", from, "to", to, "steps", st, "region", region));
        });
  }

  @Override
  public CommandResult abortMove(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return command(
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
          // The held step stays in effect but is not stable: a rollback after the abort returns
          // to the plan before the move.
          ServiceControl next = Transitions.settle(sc, r).withPending(null);
          next =
              Transitions.endShift(next, cfg, now)
                  .withCooldownUntil(now + cfg.traffic().cooldown().toMillis());
          return new Outcome(
              cs.withService(name, next),
              "move-abort",
              name,
              "ramp aborted at "
                  + r.percent(r.index())
                  + "%; the step is held, roll back to return to the plan before it",
              Map.of("ramp", r.id()),
              List.of(rec));
        });
  }

  @Override
  public CommandResult rollback(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return command(actor, reason, requestId, rollbackCommand(service), LocalAction.Kind.ROLLBACK);
  }

  /** Rolls {@code service} (every service when null) back to its last stable plan. */
  private StateWriter.Command rollbackCommand(String service) {
    return (cs, now) -> {
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
        return new Outcome(cs, "rollback", service, "already at the last stable plan", Map.of());
      }
      return new Outcome(
          next,
          "rollback",
          service,
          "rolled back " + touched,
          Map.of("services", touched),
          finished);
    };
  }

  @Override
  public CommandResult freeze(
      Actor actor, String service, boolean frozen, String reason, String requestId)
      throws CommandRejectedException {
    return command(
        actor,
        reason,
        requestId,
        freezeCommand(service, frozen),
        frozen ? LocalAction.Kind.FREEZE : null);
  }

  /** Freezes or unfreezes {@code service} (everything when null). */
  private StateWriter.Command freezeCommand(String service, boolean frozen) {
    return (cs, now) -> {
      String action = frozen ? "freeze" : "unfreeze";
      if (service == null) {
        if (cs.frozen() == frozen) {
          return new Outcome(
              cs, action, null, "already " + (frozen ? "frozen" : "unfrozen"), Map.of());
        }
        ControlState next = cs.withFrozen(frozen);
        List<String> held = new ArrayList<>();
        if (!frozen) {
          for (String name : PlanProjection.services(store.current().config()).keySet()) {
            next = releaseHeld(next, name, now, held);
          }
        }
        return new Outcome(
            next,
            action,
            null,
            "global " + action + heldNote(held),
            held.isEmpty() ? Map.of("scope", "global") : Map.of("scope", "global", "held", held));
      }
      String name = serviceName(service);
      serviceConfig(name);
      ServiceControl sc = cs.service(name);
      if (sc.frozen() == frozen) {
        return new Outcome(
            cs, action, name, "already " + (frozen ? "frozen" : "unfrozen"), Map.of());
      }
      ControlState next = cs.withService(name, sc.withFrozen(frozen));
      List<String> held = new ArrayList<>();
      if (!frozen) {
        next = releaseHeld(next, name, now, held);
      }
      return new Outcome(
          next,
          action,
          name,
          name + " " + action + heldNote(held),
          held.isEmpty() ? Map.of("scope", "service") : Map.of("scope", "service", "held", held));
    };
  }

  @Override
  public CommandResult confirm(
      Actor actor, String service, boolean accept, String reason, String requestId)
      throws CommandRejectedException {
    if (accept && service != null && !service.isBlank()) {
      // Judged before the writer lock is taken (an external gate may call out over HTTP): a
      // confirmed failover or failback whose gates fail on the evidence since it was proposed
      // changes nothing and tells the caller why.
      GateResult g = steps.confirmGates(serviceNameOrRaw(service));
      if (g != null && g.failed()) {
        throw CommandRejectedException.conflict(
            serviceNameOrRaw(service)
                + ": not confirmed, a gate fails: "
                + g.failure()
                + " (nothing changed; reject or roll back, or confirm again once it holds)");
      }
    }
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          ServiceControl sc = cs.service(name);
          boolean paused = sc.ramp() != null && sc.ramp().state() == Ramp.State.PAUSED;
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
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          String name = serviceName(service);
          ServiceConfig cfg = serviceConfig(name);
          Set<String> pools = PlanProjection.poolNames(cfg);
          rules(p -> CommandRules.drill(p, name, pools, to, percent, seconds));
          double pct = percent;
          List<String> from = new ArrayList<>(pools);
          from.removeAll(to);
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
                  SwitchDetails.conditions(
                      store.current().config(),
                      cfg.traffic(),
                      null,
                      SwitchDetails.concat(from, to),
                      Map.of("timeBoxSeconds", seconds)));
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
    return command(
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
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          // A dynamic member can be drained from the moment it is added.
          SluiceConfig config = store.current().config().withDynamicMembers(cs.members());
          rules(p -> CommandRules.drainTarget(p, config, target));
          String action = drained ? "drain" : "undrain";
          // The pool or endpoint leaves (or rejoins) the answers at once: the services that use
          // it serve the short TTL from the first changed answer.
          List<String> compressed = new ArrayList<>();
          ControlState next = Maintenance.drain(cs, config, target, drained, now, compressed);
          if (next == cs) {
            return new Outcome(
                cs,
                action,
                null,
                target + " already " + (drained ? "drained" : "undrained"),
                Map.of());
          }
          return new Outcome(
              next,
              action,
              null,
              action + " " + target,
              Map.of("target", target, "shortTtl", compressed));
        });
  }

  @Override
  public CommandResult addMaintenance(
      Actor actor, MaintenanceRequest window, String reason, String requestId)
      throws CommandRejectedException {
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          SluiceConfig config = store.current().config().withDynamicMembers(cs.members());
          String target =
              window.kind() == MaintenanceKind.MOVE && window.target() != null
                  ? serviceNameOrRaw(window.target())
                  : window.target();
          MaintenanceRequest w =
              new MaintenanceRequest(
                  window.kind(),
                  target,
                  window.from(),
                  window.to(),
                  window.startMillis(),
                  window.durationSeconds());
          rules(p -> CommandRules.maintenance(p, config, w, now));
          long start = window.startMillis() == null ? now : window.startMillis();
          return Maintenance.add(
              cs,
              config,
              actor == null ? null : actor.name(),
              window.kind(),
              target,
              window.from(),
              window.to(),
              start,
              start + window.durationSeconds() * 1000,
              reason);
        });
  }

  @Override
  public CommandResult cancelMaintenance(Actor actor, String id, String reason, String requestId)
      throws CommandRejectedException {
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> Maintenance.cancel(cs, store.current().config(), id, now));
  }

  @Override
  public List<Map<String, Object>> maintenance() {
    return writer.state().maintenance().stream()
        .sorted(
            java.util.Comparator.comparingLong(MaintenanceWindow::startMillis)
                .thenComparing(MaintenanceWindow::id))
        .map(Maintenance::view)
        .toList();
  }

  @Override
  public CommandResult setMember(
      Actor actor,
      String pool,
      String name,
      String address,
      Integer weight,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          SluiceConfig config = store.current().config();
          rules(
              p ->
                  CommandRules.member(
                      p, config, pool, fileEndpoints(cs, config, pool), name, address, weight));
          EndpointConfig m = new EndpointConfig(name, address, null, weight, null);
          List<EndpointConfig> list = new ArrayList<>(cs.members().getOrDefault(pool, List.of()));
          EndpointConfig old = null;
          for (int i = 0; i < list.size(); i++) {
            if (list.get(i).id().equals(name)) {
              old = list.set(i, m);
            }
          }
          if (m.equals(old)) {
            return new Outcome(cs, "member-set", null, pool + "/" + name + " unchanged", Map.of());
          }
          if (old == null) {
            list.add(m);
          }
          Map<String, List<EndpointConfig>> all = new HashMap<>(cs.members());
          all.put(pool, list);
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("pool", pool);
          d.put("name", name);
          d.put("address", address);
          d.put("weight", m.weight());
          return new Outcome(
              cs.withMembers(all),
              old == null ? "member-add" : "member-update",
              null,
              (old == null ? "added " : "updated ")
                  + pool
                  + "/"
                  + name
                  + " ("
                  + address
                  + ", weight "
                  + m.weight()
                  + ")",
              d);
        });
  }

  @Override
  public CommandResult removeMember(
      Actor actor, String pool, String name, String reason, String requestId)
      throws CommandRejectedException {
    return command(
        actor,
        reason,
        requestId,
        (cs, now) -> {
          List<EndpointConfig> list = cs.members().getOrDefault(pool, List.of());
          if (list.stream().noneMatch(e -> e.id().equals(name))) {
            throw CommandRejectedException.invalid(
                "name",
                "pool '"
                    + pool
                    + "' has no dynamic member '"
                    + name
                    + "' (members: "
                    + list.stream().map(EndpointConfig::id).toList()
                    + ")");
          }
          Map<String, List<EndpointConfig>> all = new HashMap<>(cs.members());
          List<EndpointConfig> rest = list.stream().filter(e -> !e.id().equals(name)).toList();
          if (rest.isEmpty()) {
            all.remove(pool);
          } else {
            all.put(pool, rest);
          }
          // A drain of the member goes with it, so a member added again later starts undrained.
          Set<String> drained = new HashSet<>(cs.drained());
          drained.remove(pool + "/" + name);
          return new Outcome(
              cs.withMembers(all).withDrained(drained),
              "member-remove",
              null,
              "removed " + pool + "/" + name,
              Map.of("pool", pool, "name", name));
        });
  }

  @Override
  public Set<String> dynamicMembers(String pool) {
    Set<String> out = new java.util.TreeSet<>();
    writer.state().members().getOrDefault(pool, List.of()).forEach(e -> out.add(e.id()));
    return out;
  }

  /** Runs {@code r} after each change of the dynamic members (a command or an adopted record). */
  public void onMembersChanged(Runnable r) {
    membersListener = r;
  }

  private synchronized Map<String, List<EndpointConfig>> announcedMembersView() {
    return announcedMembers;
  }

  private synchronized java.util.concurrent.Executor announcer() {
    if (announcer == null) {
      announcer =
          java.util.concurrent.Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "sluice-members");
                t.setDaemon(true);
                return t;
              });
    }
    return announcer;
  }

  /**
   * Tells the listener when the members differ from those it was last told of, whoever changed them
   * (a command here, or a record of another node adopted here).
   */
  private synchronized void announceMembers() {
    Map<String, List<EndpointConfig>> now = writer.state().members();
    if (!now.equals(announcedMembers)) {
      announcedMembers = now;
      membersListener.run();
    }
  }

  /** The endpoints the configuration file declares in {@code pool} (not the dynamic members). */
  private static Set<String> fileEndpoints(ControlState cs, SluiceConfig config, String pool) {
    Set<String> out = new HashSet<>();
    io.sluice.core.config.PoolConfig pc = pool == null ? null : config.pools().get(pool);
    if (pc != null) {
      pc.endpoints().forEach(e -> out.add(e.id()));
      cs.members().getOrDefault(pool, List.of()).forEach(e -> out.remove(e.id()));
    }
    return out;
  }

  /** Releases what a freeze held on {@code name} (see {@link Transitions#releaseHeld}). */
  private ControlState releaseHeld(ControlState cs, String name, long now, List<String> held)
      throws CommandRejectedException {
    return Transitions.releaseHeld(
        cs, name, now, serviceConfig(name).traffic().confirmTimeout(), held);
  }

  private static String heldNote(List<String> held) {
    return held.isEmpty()
        ? ""
        : "; held by the freeze, waiting for confirm or reject: " + String.join("; ", held);
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
      // The planner knows the chain (priority, geo, residency...); weights alone are only a guess.
      Map<String, Double> share = shares.shares(snap, e.getKey());
      out.add(
          new ServiceStatus(
              e.getKey(),
              cfg.traffic().mode(),
              sc.frozen(),
              cs.frozen(),
              share != null ? share : PlanProjection.shares(plan, cfg, cs.drained()),
              StatusMaps.ramp(sc.ramp()),
              StatusMaps.drill(sc.drill()),
              StatusMaps.pending(sc.pending()),
              PlanProjection.servedTtl(plan, cfg),
              sc.stableRevision(),
              shares.sharesByRegion(snap, e.getKey())));
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
    for (MaintenanceWindow w : writer.state().maintenance()) {
      for (SwitchRecord r : w.records()) {
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
   * Where the probes publish verdicts: each batch goes out in one snapshot with the controller's
   * reaction to it; see {@link ControllerSteps#publishHealth}.
   */
  public HealthPublisher healthPublisher() {
    return steps::publishHealth;
  }

  /** Returns once no change is being written (takes and releases the writer lock). */
  void awaitWrites() {
    writer.locked(() -> {});
  }

  /**
   * One controller step over every service (see {@link ControllerSteps#tick()}); on a follower only
   * the gate-evidence bookkeeping.
   */
  public void tick() {
    steps.tick();
  }

  // ---------------------------------------------------------------- helpers

  /** Runs an operator command; what it began counts its gate evidence from this moment. */
  private CommandResult command(Actor actor, String reason, String requestId, StateWriter.Command c)
      throws CommandRejectedException {
    return command(actor, reason, requestId, c, null);
  }

  /**
   * Like {@link #command(Actor, String, String, StateWriter.Command)}, for a safety action a node
   * cut off from the cluster still applies on its own ({@code safety} null for any other).
   */
  private CommandResult command(
      Actor actor, String reason, String requestId, StateWriter.Command c, LocalAction.Kind safety)
      throws CommandRejectedException {
    CommandResult r = writer.command(actor, reason, requestId, c, safety);
    announceMembers();
    if (r.changed()) {
      for (String name : writer.state().services().keySet()) {
        steps.beginEvidence(name);
      }
    }
    return r;
  }

  /** Runs one command's rules from {@link CommandRules}; rejects with every problem found. */
  private static void rules(Consumer<CommandProblems> rule) throws CommandRejectedException {
    CommandProblems p = new CommandProblems();
    rule.accept(p);
    p.throwIfAny();
  }

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

  private static Map<String, Integer> effectiveWeights(ServiceControl sc, ServiceConfig cfg) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (ServicePoolConfig sp : cfg.pools()) {
      out.put(sp.pool(), sc.weights().getOrDefault(sp.pool(), sp.weight()));
    }
    return out;
  }
}
