package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.audit.FileAuditLog;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The single writer of the traffic state: applies one {@link Outcome} at a time under a fair lock,
 * publishing the next snapshot, making the state durable and auditing it before acknowledging.
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

  /** Restores the last durable state and publishes it into {@code store}. */
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
    this.state =
        saved.isPresent() ? json.readValue(saved.get(), ControlState.class) : ControlState.INITIAL;
    publish(state);
    reportTtls(state);
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
    if (actor == null || actor.name() == null || actor.name().isBlank()) {
      throw CommandRejectedException.invalid("actor", "is required");
    }
    if (requestId != null && (requestId.isBlank() || requestId.length() > 128)) {
      throw CommandRejectedException.invalid("requestId", "must be 1..128 characters");
    }
    long started = System.nanoTime();
    lock.lock();
    try {
      ControlState cs = state;
      if (requestId != null) {
        CommandResult first = cs.request(requestId);
        if (first != null) {
          return first;
        }
      }
      Outcome o = c.apply(cs, ticker.currentTimeMillis());
      if (o.next() == cs) {
        return new CommandResult(store.current().version(), false, o.message());
      }
      return apply(actor, reason, requestId, o, started);
    } finally {
      lock.unlock();
    }
  }

  /** Applies a controller step (if it changes anything) as the controller. */
  void controllerStep(Outcome o) {
    if (o != null && o.next() != state) {
      apply(Actor.CONTROLLER, o.message(), null, o, System.nanoTime());
    }
  }

  /**
   * Publishes a batch of verdicts together with the controller's reaction to it: one snapshot
   * carries both, so the first answer that follows the verdicts already follows the reaction (the
   * short TTL of a failover it starts, for one). Call under the writer lock. When the reaction
   * cannot be made durable, the verdicts stay published alone and the next tick retries it.
   */
  HealthPublisher.Published healthStep(
      UnaryOperator<HealthView> health,
      Consumer<HealthPublisher.Published> recorded,
      List<Outcome> reaction) {
    if (reaction.isEmpty()) {
      return HealthPublisher.direct(store).publish(health, recorded);
    }
    try {
      Applied a =
          apply(
              Actor.CONTROLLER,
              null,
              null,
              reaction,
              new HealthBatch(health, recorded),
              System.nanoTime());
      return new HealthPublisher.Published(a.versionBefore(), a.after());
    } catch (NotPersisted e) {
      LOG.log(
          System.Logger.Level.ERROR,
          "cannot persist the controller's reaction to new verdicts; the verdicts are published"
              + " and the next controller step retries it",
          e);
      return new HealthPublisher.Published(e.versionBefore, e.published);
    }
  }

  /** A change whose journal record failed: its traffic part was withdrawn again. */
  private static final class NotPersisted extends UncheckedIOException {
    private static final long serialVersionUID = 1L;
    private final long versionBefore;
    private final transient Snapshot published;

    NotPersisted(IOException cause, long versionBefore, Snapshot published) {
      super("cannot persist the traffic state", cause);
      this.versionBefore = versionBefore;
      this.published = published;
    }
  }

  /**
   * Verdicts published with a change, and what records them right after the publish (before the
   * change's own audit events).
   */
  private record HealthBatch(
      UnaryOperator<HealthView> change, Consumer<HealthPublisher.Published> recorded) {
    static final HealthBatch NONE = new HealthBatch(UnaryOperator.identity(), p -> {});
  }

  /** What one applied change published. */
  private record Applied(CommandResult result, long versionBefore, Snapshot after) {}

  private CommandResult apply(
      Actor actor, String reason, String requestId, Outcome o, long startedNanos) {
    return apply(actor, reason, requestId, List.of(o), HealthBatch.NONE, startedNanos).result();
  }

  /**
   * Publishes, persists and audits one change: the outcomes in order (each the next state of the
   * one before), in one snapshot with {@code health}'s verdicts. The snapshot is published first so
   * that answers change at once (a rollback is not delayed by the fsync); the command is
   * acknowledged only after the journal record is durable, and a failed write restores the previous
   * traffic state.
   */
  private Applied apply(
      Actor actor,
      String reason,
      String requestId,
      List<Outcome> outcomes,
      HealthBatch health,
      long startedNanos) {
    ControlState prev = state;
    Outcome last = outcomes.get(outcomes.size() - 1);
    ControlState revised = last.next().nextRevision();
    long[] replaced = new long[1];
    Snapshot after =
        store.update(
            s -> {
              replaced[0] = s.version();
              return HealthPublisher.applied(s, health.change())
                  .withTraffic(PlanProjection.project(revised, s.config()));
            });
    long before = replaced[0];
    health.recorded().accept(new HealthPublisher.Published(before, after));
    long effectiveNanos = System.nanoTime() - startedNanos;
    CommandResult result = new CommandResult(after.version(), true, last.message());
    ControlState next = requestId == null ? revised : revised.withRequest(requestId, result);
    try {
      for (Outcome o : outcomes) {
        for (SwitchRecord r : o.finished()) {
          SwitchRecord done = r;
          if ("rolled-back".equals(r.outcome())) {
            done =
                Switches.finish(
                    r,
                    r.outcome(),
                    r.endedMillis(),
                    rollbackTiming(r, effectiveNanos, store.current().config()));
          }
          switchLog.append(done);
        }
      }
      log.commit(json.writeValueAsBytes(next));
    } catch (IOException e) {
      publish(prev);
      throw new NotPersisted(e, before, after);
    }
    state = next;
    for (Outcome o : outcomes) {
      if ("rollback".equals(o.action()) || "reject".equals(o.action())) {
        metrics.rollback(o.service() == null ? "*" : o.service(), effectiveNanos);
      }
      Map<String, Object> details = new LinkedHashMap<>(o.details());
      details.put("revision", next.revision());
      audit.append(
          actor,
          o.action(),
          o.service(),
          reason == null ? o.message() : reason,
          before,
          after.version(),
          details);
    }
    reportTtls(next);
    return new Applied(result, before, after);
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

  private Snapshot publish(ControlState cs) {
    return store.update(s -> s.withTraffic(PlanProjection.project(cs, s.config())));
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
