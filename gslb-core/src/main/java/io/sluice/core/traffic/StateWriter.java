package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.audit.FileAuditLog;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.health.HealthView;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.DurableLog;
import io.sluice.core.store.StoreUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The single writer of the traffic state: applies one {@link Outcome} at a time under a fair lock.
 * Each change is validated by its command, then written to the journal together with its audit
 * event and finished switch records (one fsync), then the audit log line and switch records are
 * written from it, and only then is the next snapshot published and the caller answered. A change
 * that cannot be made durable is not published and the caller gets a {@link
 * StoreUnavailableException}; the store then reports itself unhealthy.
 */
final class StateWriter {
  private static final System.Logger LOG = System.getLogger(StateWriter.class.getName());

  private final SnapshotStore store;
  private final DurableLog log;
  private final FileAuditLog audit;
  private final SwitchLog switchLog;
  private final Ticker ticker;
  private final GslbMetrics metrics;
  private final ObjectMapper json;
  private final ReentrantLock lock = new ReentrantLock(true);
  private volatile ControlState state;
  // Why the store is unhealthy (null when healthy): a failed journal or audit write.
  private volatile String problem;
  // The audit event of the last durable change when its audit log line could not be written.
  private AuditEvent auditBehind;
  // Finished switch records of the last durable change not yet in switches.jsonl.
  private List<SwitchRecord> switchesBehind = List.of();

  /**
   * Restores the last durable state and publishes it into {@code store}; re-derives the audit line
   * of the last change if it was lost (the process stopped, or the write failed, after the fsync).
   */
  StateWriter(
      SnapshotStore store,
      DurableLog log,
      FileAuditLog audit,
      SwitchLog switchLog,
      Ticker ticker,
      GslbMetrics metrics,
      ObjectMapper json)
      throws IOException {
    this.store = store;
    this.log = log;
    this.audit = audit;
    this.switchLog = switchLog;
    this.ticker = ticker;
    this.metrics = metrics;
    this.json = json;
    Optional<byte[]> saved = log.recover();
    JournalEntry last = saved.isPresent() ? JournalEntry.decode(json, saved.get()) : null;
    this.state = last == null ? ControlState.INITIAL : last.state();
    if (last != null && last.audit() != null && state.revision() > audit.lastRevision()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the audit line of traffic state revision {0} was lost; writing it from the journal",
          state.revision());
      writeAudit(last.audit());
    }
    if (last != null && last.switches() != null) {
      // Rewriting a record that is already there is harmless: the newest copy of an id wins.
      Map<String, SwitchRecord> written = switchLog.byId();
      List<SwitchRecord> missing =
          last.switches().stream()
              .filter(r -> !written.containsKey(r.id()) || !written.get(r.id()).equals(r))
              .toList();
      if (!missing.isEmpty()) {
        writeSwitches(missing);
      }
    }
    store.update(s -> s.withTraffic(PlanProjection.project(state, s.config())));
    reportTtls(state);
    metrics.storeHealthy(problem == null);
  }

  /** The durable state now in effect. */
  ControlState state() {
    return state;
  }

  /** Runs {@code step} holding the writer lock, so no command interleaves with it. */
  void locked(Runnable step) {
    lock.lock();
    try {
      step.run();
    } finally {
      lock.unlock();
    }
  }

  /** A command body: validates against the current state and returns its outcome. */
  interface Command {
    Outcome apply(ControlState current, long now) throws CommandRejectedException;
  }

  CommandResult command(Actor actor, String reason, String requestId, Command c)
      throws CommandRejectedException {
    CommandProblems common = new CommandProblems();
    if (actor == null || actor.name() == null || actor.name().isBlank()) {
      common.add("actor", "is required");
    }
    CommandRules.reason(common, reason);
    CommandRules.requestId(common, requestId);
    long started = System.nanoTime();
    lock.lock();
    try {
      ControlState cs = state;
      if (!common.isEmpty()) {
        // The command's own rules run too (its outcome is discarded), so the caller learns every
        // problem of the request at once.
        try {
          c.apply(cs, ticker.currentTimeMillis());
        } catch (CommandRejectedException e) {
          if (!e.conflict()) {
            common.addAll(e.problems());
          }
        }
        common.throwIfAny();
      }
      if (requestId != null) {
        CommandResult first = cs.request(requestId);
        if (first != null) {
          return first;
        }
      }
      Outcome o = c.apply(cs, ticker.currentTimeMillis());
      if (o.next() == cs) {
        return unchanged(requestId, o.message());
      }
      return apply(actor, reason, requestId, o, started);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The answer to a command that changed nothing. Its request id is remembered with it (journaled
   * with the next change), so a retry gets this answer instead of being applied to whatever the
   * state has become since: a rollback retried after a move started would otherwise undo the move.
   * Called with the writer lock held.
   */
  private CommandResult unchanged(String requestId, String message) {
    CommandResult r = new CommandResult(store.current().version(), false, message);
    if (requestId != null) {
      state = state.withRequest(requestId, r);
    }
    return r;
  }

  /** Applies a controller step (if it changes anything) as the controller. */
  void controllerStep(Outcome o) {
    if (o != null && o.next() != state) {
      apply(Actor.CONTROLLER, o.message(), null, o, System.nanoTime());
    }
  }

  /** Why the store is unhealthy, or empty when its last write succeeded. */
  Optional<String> problem() {
    return Optional.ofNullable(problem);
  }

  /**
   * Makes one change durable and audited, then publishes it: validate (done by the caller) →
   * journal record with its audit event (one fsync) → audit log line → publish → reply. Versions
   * are assigned under the snapshot store's writer lock, so the audit event names the exact version
   * that answers follow.
   */
  private CommandResult apply(
      Actor actor, String reason, String requestId, Outcome o, long startedNanos) {
    if (!catchUp()) {
      // An unaudited change must not be followed by more: the journal keeps only the last event.
      throw StoreUnavailableException.still(problem);
    }
    ControlState revised = o.next().nextRevision();
    long now = ticker.currentTimeMillis();
    CommandResult[] result = new CommandResult[1];
    try {
      store.update(
          s -> s.withTraffic(PlanProjection.project(revised, s.config())),
          versioned -> {
            CommandResult r = new CommandResult(versioned.version(), true, o.message());
            ControlState next = requestId == null ? revised : revised.withRequest(requestId, r);
            persist(actor, reason, o, next, versioned, now, startedNanos);
            result[0] = r;
          });
    } catch (IOException e) {
      StoreUnavailableException failure =
          StoreUnavailableException.of(
              log.location(), e, "the change was not applied and nothing was published");
      unhealthy(failure.getMessage(), e);
      throw failure;
    }
    if (result[0] == null) {
      // The projection produced the same snapshot object: nothing to persist or publish.
      return unchanged(requestId, o.message());
    }
    if (caughtUp()) {
      healthy();
    }
    if ("rollback".equals(o.action()) || "reject".equals(o.action())) {
      metrics.rollback(o.service() == null ? "*" : o.service(), System.nanoTime() - startedNanos);
    }
    reportTtls(state);
    return result[0];
  }

  /**
   * Makes {@code next} (the state after {@code o}) durable with its audit event and finished switch
   * records (one fsync), then writes the audit line and switch records from it. Returns whether
   * those writes succeeded; a failed journal write throws and leaves the state as it was.
   */
  private boolean persist(
      Actor actor,
      String reason,
      Outcome o,
      ControlState next,
      Snapshot versioned,
      long now,
      long startedNanos)
      throws IOException {
    long effectiveNanos = System.nanoTime() - startedNanos;
    List<SwitchRecord> finished = new ArrayList<>();
    for (SwitchRecord sr : o.finished()) {
      SwitchRecord done = sr;
      if ("rolled-back".equals(sr.outcome())) {
        done =
            Switches.finish(
                sr,
                sr.outcome(),
                sr.endedMillis(),
                rollbackTiming(sr, effectiveNanos, versioned.config()));
      }
      finished.add(done);
    }
    Map<String, Object> details = new LinkedHashMap<>(o.details());
    details.put("revision", next.revision());
    AuditEvent event =
        new AuditEvent(
            0,
            now,
            actor.name(),
            actor.role(),
            o.action(),
            o.service(),
            reason == null ? o.message() : reason,
            versioned.version() - 1,
            versioned.version(),
            details);
    log.commit(json.writeValueAsBytes(new JournalEntry(next, event, finished)));
    state = next;
    boolean written = writeAudit(event);
    return (finished.isEmpty() || writeSwitches(finished)) && written;
  }

  /**
   * Publishes a batch of verdicts together with the controller's reaction to it: one snapshot
   * carries both, so the first answer that follows the verdicts already follows the reaction (the
   * short TTL of a failover it starts, for one). Each outcome of {@code reaction} holds the revised
   * state it leads to (see {@link ControllerSteps#publishHealth}) and gets its own journal record
   * and audit event, all naming the one snapshot; {@code recorded} (the probe's own events) runs
   * first, so the audit log reads cause before effect. Call under the writer lock. When the
   * reaction cannot be made durable, the verdicts are published with the state that is, and a later
   * tick retries the rest.
   */
  HealthPublisher.Published healthStep(
      UnaryOperator<HealthView> health,
      Consumer<HealthPublisher.Published> recorded,
      List<Outcome> reaction) {
    if (reaction.isEmpty() || !catchUp()) {
      return HealthPublisher.direct(store).publish(health, recorded);
    }
    ControlState last = reaction.get(reaction.size() - 1).next();
    long now = ticker.currentTimeMillis();
    HealthPublisher.Published[] out = new HealthPublisher.Published[1];
    boolean[] told = new boolean[1];
    try {
      store.update(
          s ->
              HealthPublisher.applied(s, health)
                  .withTraffic(PlanProjection.project(last, s.config())),
          versioned -> {
            HealthPublisher.Published p =
                new HealthPublisher.Published(versioned.version() - 1, versioned);
            recorded.accept(p);
            told[0] = true;
            for (Outcome o : reaction) {
              if (!persist(
                  Actor.CONTROLLER, null, o, o.next(), versioned, now, System.nanoTime())) {
                // Durable but not audited: nothing more may follow it (see apply).
                throw new IOException("the audit log or switch records cannot be written");
              }
            }
            out[0] = p;
          });
    } catch (IOException e) {
      unhealthy(
          StoreUnavailableException.of(
                  log.location(),
                  e,
                  "the verdicts are published; the controller's reaction to them waits")
              .getMessage(),
          e);
    }
    if (out[0] == null) {
      // Publish the verdicts with whatever part of the reaction is durable, nothing more.
      ControlState durable = state;
      long[] before = new long[1];
      Snapshot after =
          store.update(
              s -> {
                before[0] = s.version();
                return HealthPublisher.applied(s, health)
                    .withTraffic(PlanProjection.project(durable, s.config()));
              });
      out[0] = new HealthPublisher.Published(before[0], after);
      if (!told[0]) {
        recorded.accept(out[0]);
      }
    } else if (caughtUp()) {
      healthy();
    }
    reportTtls(state);
    return out[0];
  }

  /**
   * While the store is unhealthy, retries what failed (the pending audit line or switch records,
   * else a test write), so that {@code /readyz} and the metric recover once space is freed even
   * when no command comes. Called by the controller's tick.
   */
  void retryIfUnhealthy() {
    if (problem == null) {
      return;
    }
    lock.lock();
    try {
      if (!catchUp()) {
        return;
      }
      try {
        log.checkWritable();
        healthy();
      } catch (IOException e) {
        unhealthy(
            StoreUnavailableException.of(log.location(), e, "changes are refused until it can be")
                .getMessage(),
            e);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes what the last durable change still owes the audit log and the switch records; false
   * while they cannot be written.
   */
  private boolean catchUp() {
    return (auditBehind == null || writeAudit(auditBehind))
        && (switchesBehind.isEmpty() || writeSwitches(switchesBehind));
  }

  /** Whether the audit log and the switch records hold everything the journal does. */
  private boolean caughtUp() {
    return auditBehind == null && switchesBehind.isEmpty();
  }

  /** Writes one audit line from a journal record; on failure the store reports itself unhealthy. */
  private boolean writeAudit(AuditEvent a) {
    try {
      audit.append(a);
      auditBehind = null;
      return true;
    } catch (IOException | UncheckedIOException e) {
      auditBehind = a;
      IOException cause = e instanceof IOException io ? io : ((UncheckedIOException) e).getCause();
      unhealthy(
          StoreUnavailableException.of(
                  "audit log",
                  cause,
                  "the last change is durable and its audit event is kept in the journal; no"
                      + " further change is accepted until the audit log can be written")
              .getMessage(),
          e);
      return false;
    }
  }

  /** Appends finished switch records from a journal record; on failure the store is unhealthy. */
  private boolean writeSwitches(List<SwitchRecord> records) {
    try {
      for (SwitchRecord r : records) {
        switchLog.append(r);
      }
      switchesBehind = List.of();
      return true;
    } catch (IOException e) {
      switchesBehind = List.copyOf(records);
      unhealthy(
          StoreUnavailableException.of(
                  "switch records",
                  e,
                  "the last change is durable and its switch records are kept in the journal; no"
                      + " further change is accepted until they can be written")
              .getMessage(),
          e);
      return false;
    }
  }

  private void unhealthy(String why, Exception e) {
    boolean first = problem == null;
    problem = why;
    metrics.storeHealthy(false);
    if (first) {
      LOG.log(System.Logger.Level.ERROR, why, e);
    } else {
      // Retries (every controller tick, every command) repeat the same failure: one line each.
      LOG.log(System.Logger.Level.ERROR, why);
    }
  }

  private void healthy() {
    if (problem != null) {
      problem = null;
      metrics.storeHealthy(true);
      LOG.log(System.Logger.Level.INFO, "the state store is writable again");
    }
  }

  private Map<String, Object> rollbackTiming(SwitchRecord r, long nanos, SluiceConfig config) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("rollbackMillis", nanos / 1_000_000.0);
    ServiceConfig cfg = PlanProjection.services(config).get(r.service());
    if (cfg != null) {
      // Resolvers may hold answers from the shift for at most the short TTL.
      d.put("sharesRestoredByMillis", r.endedMillis() + cfg.traffic().shiftTtl() * 1000);
    }
    return d;
  }

  private void reportTtls(ControlState cs) {
    for (Map.Entry<String, ServiceConfig> e :
        PlanProjection.services(store.current().config()).entrySet()) {
      metrics.servedTtl(
          e.getKey(),
          PlanProjection.servedTtl(
              PlanProjection.plan(cs.service(e.getKey()), e.getValue()), e.getValue()));
    }
  }
}
