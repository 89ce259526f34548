package io.sluice.admin.testing;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.control.ServiceStatus;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.state.TrafficState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * An in-memory control plane for tests: records every command with its actor, applies a simple
 * version of its effect to the snapshot store, keeps an audit list, honours request ids, and can be
 * told to fail the next command.
 */
public final class RecordingControlPlane implements ControlPlane {

  /** One recorded command. */
  public record Call(
      String command, Actor actor, String service, Map<String, Object> args, String requestId) {}

  private final SnapshotStore store;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<AuditEvent> auditLog = new CopyOnWriteArrayList<>();
  private final List<SwitchRecord> switchRecords = new CopyOnWriteArrayList<>();
  private final Map<String, Map<String, Object>> pending = new HashMap<>();
  private volatile Exception nextFailure;
  private volatile CountDownLatch hold;

  public RecordingControlPlane(SnapshotStore store) {
    this.store = store;
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  public Call lastCall() {
    return calls.get(calls.size() - 1);
  }

  private final CountDownLatch held = new CountDownLatch(1);

  /** Makes the next command wait (at most 10 s) until {@code latch} opens. */
  public void holdNext(CountDownLatch latch) {
    hold = latch;
  }

  /** Waits (at most 10 s) until a held command has arrived. */
  public boolean awaitHeld() throws InterruptedException {
    return held.await(10, TimeUnit.SECONDS);
  }

  private volatile CountDownLatch auditHold;
  private final AtomicInteger auditsHeld = new AtomicInteger();

  /** Makes every audit query wait (at most 20 s) until {@code latch} opens; null stops that. */
  public void holdAudits(CountDownLatch latch) {
    auditHold = latch;
  }

  /** How many audit queries are waiting on the latch now. */
  public int auditsHeld() {
    return auditsHeld.get();
  }

  /** Makes the next command throw {@code e} (a rejection or an unexpected failure). */
  public void failNext(Exception e) {
    nextFailure = e;
  }

  public void addSwitchRecord(SwitchRecord r) {
    switchRecords.add(r);
  }

  public synchronized void setPending(String service, Map<String, Object> step) {
    pending.put(service, step);
  }

  /** Appends an audit event directly, as another component would. */
  public void addAudit(AuditEvent e) {
    auditLog.add(e);
  }

  private CommandResult run(
      String command,
      Actor actor,
      String service,
      Map<String, Object> args,
      String requestId,
      UnaryOperator<Snapshot> effect)
      throws CommandRejectedException {
    CountDownLatch latch = hold;
    hold = null;
    if (latch != null) {
      held.countDown();
      try {
        latch.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return apply(command, actor, service, args, requestId, effect);
  }

  private synchronized CommandResult apply(
      String command,
      Actor actor,
      String service,
      Map<String, Object> args,
      String requestId,
      UnaryOperator<Snapshot> effect)
      throws CommandRejectedException {
    Exception f = nextFailure;
    nextFailure = null;
    if (f instanceof CommandRejectedException r) {
      throw r;
    }
    if (f instanceof RuntimeException r) {
      throw r;
    }
    calls.add(new Call(command, actor, service, args, requestId));
    long before = store.current().version();
    Snapshot after = store.update(effect);
    auditLog.add(
        new AuditEvent(
            auditLog.size() + 1L,
            1_800_000_000_000L + auditLog.size() * 1000L,
            actor.name(),
            actor.role(),
            command,
            service,
            String.valueOf(args.getOrDefault("reason", "")),
            before,
            after.version(),
            args));
    return new CommandResult(after.version(), after.version() != before, command + " applied");
  }

  private static UnaryOperator<Snapshot> plan(String service, UnaryOperator<ServicePlan> f) {
    return s -> {
      TrafficState t = s.traffic();
      return s.withTraffic(t.withPlan(service, f.apply(t.plan(service))));
    };
  }

  private static Map<String, Object> args(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Override
  public CommandResult setWeights(
      Actor actor,
      String service,
      Map<String, Integer> weights,
      boolean ramp,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return run(
        "setWeights",
        actor,
        service,
        args("weights", Map.copyOf(weights), "ramp", ramp, "reason", reason),
        requestId,
        plan(service, p -> p.withWeights(weights)));
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
    double first = steps.isEmpty() ? 100 : steps.get(0);
    return run(
        "startMove",
        actor,
        service,
        args("from", from, "to", to, "steps", steps, "region", region, "reason", reason),
        requestId,
        plan(service, p -> p.withShifts(List.of(new Shift("move-1", from, to, first, region)))));
  }

  @Override
  public CommandResult abortMove(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return run(
        "abortMove", actor, service, args("reason", reason), requestId, UnaryOperator.identity());
  }

  @Override
  public CommandResult rollback(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    UnaryOperator<Snapshot> effect =
        service == null
            ? s -> s.withTraffic(new TrafficState(Map.of(), s.traffic().frozen(), Set.of()))
            : plan(service, p -> ServicePlan.DEFAULT.withFrozen(p.frozen()));
    return run("rollback", actor, service, args("reason", reason), requestId, effect);
  }

  @Override
  public CommandResult freeze(
      Actor actor, String service, boolean frozen, String reason, String requestId)
      throws CommandRejectedException {
    UnaryOperator<Snapshot> effect =
        service == null
            ? s -> s.withTraffic(s.traffic().withFrozen(frozen))
            : plan(service, p -> p.withFrozen(frozen));
    return run(
        frozen ? "freeze" : "unfreeze", actor, service, args("reason", reason), requestId, effect);
  }

  @Override
  public CommandResult confirm(
      Actor actor, String service, boolean accept, String reason, String requestId)
      throws CommandRejectedException {
    synchronized (this) {
      if (!pending.containsKey(service)) {
        throw CommandRejectedException.conflict("no step of " + service + " awaits confirmation");
      }
      pending.remove(service);
    }
    return run(
        accept ? "confirm" : "reject",
        actor,
        service,
        args("reason", reason),
        requestId,
        plan(service, p -> p.withTtlOverride(accept ? 10L : null)));
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
    return run(
        "startDrill",
        actor,
        service,
        args("to", to, "percent", percent, "seconds", seconds, "reason", reason),
        requestId,
        plan(service, p -> p.withShifts(List.of(new Shift("drill-1", List.of(), to, percent)))));
  }

  @Override
  public CommandResult stopDrill(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException {
    return run(
        "stopDrill",
        actor,
        service,
        args("reason", reason),
        requestId,
        plan(service, p -> p.withShifts(List.of())));
  }

  @Override
  public CommandResult drain(
      Actor actor, String target, boolean drained, String reason, String requestId)
      throws CommandRejectedException {
    return run(
        drained ? "drain" : "undrain",
        actor,
        null,
        args("target", target, "reason", reason),
        requestId,
        s -> {
          Set<String> d = new HashSet<>(s.traffic().drained());
          if (drained) {
            d.add(target);
          } else {
            d.remove(target);
          }
          return s.withTraffic(s.traffic().withDrained(d));
        });
  }

  @Override
  public CommandResult addMaintenance(
      Actor actor,
      io.sluice.core.control.MaintenanceRequest window,
      String reason,
      String requestId)
      throws CommandRejectedException {
    return run(
        "maintenance-add",
        actor,
        null,
        args("target", window.target(), "reason", reason),
        requestId,
        s -> s);
  }

  @Override
  public CommandResult cancelMaintenance(Actor actor, String id, String reason, String requestId)
      throws CommandRejectedException {
    return run(
        "maintenance-cancel", actor, null, args("id", id, "reason", reason), requestId, s -> s);
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
    return run(
        "member-set",
        actor,
        null,
        args("name", pool + "/" + name, "reason", reason),
        requestId,
        s -> s);
  }

  @Override
  public CommandResult removeMember(
      Actor actor, String pool, String name, String reason, String requestId)
      throws CommandRejectedException {
    return run(
        "member-remove",
        actor,
        null,
        args("name", pool + "/" + name, "reason", reason),
        requestId,
        s -> s);
  }

  @Override
  public synchronized List<ServiceStatus> status() {
    Snapshot s = store.current();
    List<ServiceStatus> out = new ArrayList<>();
    for (var z : s.config().zones()) {
      for (var svc : z.services()) {
        String fq = svc.fqdn(z.origin());
        ServicePlan p = s.traffic().plan(fq);
        Map<String, Double> shares = new LinkedHashMap<>();
        int total = 0;
        for (var sp : svc.pools()) {
          total += p.weights().getOrDefault(sp.pool(), sp.weight());
        }
        for (var sp : svc.pools()) {
          int w = p.weights().getOrDefault(sp.pool(), sp.weight());
          shares.put(sp.pool(), total == 0 ? 0 : 100.0 * w / total);
        }
        Map<String, Object> ramp = new LinkedHashMap<>();
        Map<String, Object> drill = new LinkedHashMap<>();
        for (Shift sh : p.shifts()) {
          Map<String, Object> target = sh.id().startsWith("drill") ? drill : ramp;
          target.put("id", sh.id());
          target.put("to", sh.to());
          target.put("percent", sh.percent());
        }
        out.add(
            new ServiceStatus(
                fq,
                svc.traffic().mode(),
                p.frozen(),
                s.traffic().frozen(),
                shares,
                ramp,
                drill,
                pending.getOrDefault(fq, Map.of()),
                p.ttlOverride() == null ? svc.ttl() : p.ttlOverride(),
                1,
                null));
      }
    }
    return out;
  }

  @Override
  public List<AuditEvent> audit(AuditQuery q) {
    CountDownLatch latch = auditHold;
    if (latch != null) {
      auditsHeld.incrementAndGet();
      try {
        latch.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        auditsHeld.decrementAndGet();
      }
    }
    return auditLog.stream()
        .filter(e -> q.service() == null || q.service().equals(e.service()))
        .filter(e -> q.actor() == null || q.actor().equals(e.actor()))
        .filter(e -> q.fromMillis() == null || e.timeMillis() >= q.fromMillis())
        .filter(e -> q.toMillis() == null || e.timeMillis() <= q.toMillis())
        .sorted(Comparator.comparingLong(AuditEvent::seq).reversed())
        .skip(q.offset())
        .limit(q.limit())
        .toList();
  }

  @Override
  public List<SwitchRecord> switches(String service) {
    return switchRecords.stream()
        .filter(r -> service == null || service.equals(r.service()))
        .sorted(Comparator.comparingLong(SwitchRecord::startedMillis).reversed())
        .toList();
  }

  @Override
  public Optional<SwitchRecord> switchRecord(String id) {
    return switchRecords.stream().filter(r -> r.id().equals(id)).findFirst();
  }
}
