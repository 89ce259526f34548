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
import io.sluice.core.state.TrafficState;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.store.DurableLog;
import io.sluice.core.store.SharedStateLog;
import io.sluice.core.store.StoreUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The single writer of the traffic state: applies one {@link Outcome} at a time under a fair lock.
 * Each change is validated by its command, then written to the journal together with its audit
 * event and finished switch records (one fsync), then the audit log line and switch records are
 * written from it, and only then is the next snapshot published and the caller answered. A change
 * that cannot be made durable is not published and the caller gets a {@link
 * StoreUnavailableException}; the store then reports itself unhealthy.
 *
 * <p>In a cluster ({@link SharedStateLog} given) the shared store is the commit point: each change
 * is committed there first, compared against the shared revision this node last applied, then
 * journalled locally (the node's cache for a start without the store), audited and published. When
 * another node committed first, the newer record is adopted and the same command runs again against
 * it, validated again. Records of other nodes are adopted the same way: journal, audit line naming
 * their origin, switch records, publish. Cut off from the store, ordinary commands are refused and
 * nothing changes on this node's own; a rollback or freeze still applies here and is kept as a
 * {@link LocalAction} until it is applied again on top of the shared state after reconnecting.
 */
final class StateWriter {
  private static final System.Logger LOG = System.getLogger(StateWriter.class.getName());
  // Conflicting commits adopted before a command gives up: only a storm of changes gets this far.
  private static final int MAX_CONFLICTS = 8;
  // How long the records between the applied revision and the newest are awaited on a catch-up.
  private static final long HISTORY_WAIT_MILLIS = 5000;

  /** Whether a change goes to the shared store or stays on this node (single node, cut off). */
  private enum Reach {
    NODE,
    CLUSTER
  }

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
  // The cluster's shared state, or null on a single node.
  private final SharedStateLog shared;
  // The shared store's revision of the record this node's state is (0: none yet); written under
  // the writer lock before the snapshot that follows it is published.
  private long appliedRevision;
  // The same once that snapshot is published, for readers outside the lock.
  private volatile long publishedRevision;
  // Safety actions applied while cut off, not yet applied to the shared state.
  private volatile List<LocalAction> localActions = List.of();
  // Whether the state holds the effect of every pending safety action (false once a shared record
  // replaced it on reconnect, until they are applied again).
  private boolean localInState = true;
  // Whether the state differs from the published snapshot: shared records adopted while safety
  // actions are owed are not published alone, so the answers never step back from a rollback or
  // freeze made during a cut to what it undid.
  private boolean unpublished;
  // The last record of the local journal, rewritten when the pending safety actions change alone.
  private JournalEntry cached;
  // Rebuilds the command of a safety action (set by the controller, which owns the commands).
  private Function<LocalAction, Command> localCommands = a -> null;
  // Runs after a record of the shared state was adopted (under the writer lock).
  private Runnable adopted = () -> {};

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
    this(store, log, audit, switchLog, ticker, metrics, json, null);
  }

  /**
   * Like the single-node writer, with {@code shared} as the commit point (null: a single node). The
   * local journal's last record is restored and published first, so a node started while the shared
   * store is unreachable serves its last state.
   */
  StateWriter(
      SnapshotStore store,
      DurableLog log,
      FileAuditLog audit,
      SwitchLog switchLog,
      Ticker ticker,
      GslbMetrics metrics,
      ObjectMapper json,
      SharedStateLog shared)
      throws IOException {
    this.shared = shared;
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
    this.cached = last;
    if (last != null) {
      this.appliedRevision = last.sharedRevision();
      this.publishedRevision = appliedRevision;
      this.localActions = last.localActions();
    }
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
    // Publishes only a restored state that differs from the one served: an equal one (a fresh
    // install, or a journal that holds no override) would make every listener derive again, and
    // the policy planner re-derives every service for it (a second of the start for 10,000).
    store.update(
        s -> {
          TrafficState restored = PlanProjection.project(state, s.config());
          return restored.equals(s.traffic()) ? s : s.withTraffic(restored);
        });
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
    return command(actor, reason, requestId, c, null);
  }

  /**
   * Runs an operator command: validate, then make it durable and audited, publish, reply. {@code
   * safety} names the safety action it is (a rollback or a freeze), which a node cut off from the
   * cluster still applies on its own; null for every other command.
   */
  CommandResult command(
      Actor actor, String reason, String requestId, Command c, LocalAction.Kind safety)
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
      if (shared != null) {
        return clustered(actor, reason, requestId, c, safety, started);
      }
      return attempt(actor, reason, requestId, c, started, Map.of(), Reach.NODE, localActions);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A command in a cluster: caught up first (and the safety actions of a cut re-applied), then
   * committed to the shared store; a cut-off node refuses it, or applies a safety action locally.
   */
  private CommandResult clustered(
      Actor actor,
      String reason,
      String requestId,
      Command c,
      LocalAction.Kind safety,
      long started)
      throws CommandRejectedException {
    try {
      SharedStateLog.Connectivity link = shared.connectivity();
      if (!link.connected() && safety != null) {
        // A safety action never waits for etcd: it applies here at once and is reconciled later.
        throw unreachable(link.problem(), null);
      }
      if (!link.connected() || !localActions.isEmpty()) {
        // The cut may have ended since the last check (up to a second ago): ask etcd once, bounded
        // by its timeout, catching up (and reconciling) before this command, rather than refusing
        // it on an old verdict. Still unreachable: refused with the reason.
        syncLocked();
      }
      return committed(actor, reason, requestId, c, Map.of(), localActions, started);
    } catch (ClusterUnreachableException e) {
      if (safety == null) {
        throw e;
      }
      return locally(actor, reason, requestId, c, safety, started, e);
    }
  }

  /**
   * Commits {@code c} to the shared store against the newest state this node knows; when another
   * node committed first, adopts what it missed and runs {@code c} again on it, at most {@link
   * #MAX_CONFLICTS} times. Called with the writer lock held.
   */
  private CommandResult committed(
      Actor actor,
      String reason,
      String requestId,
      Command c,
      Map<String, Object> marks,
      List<LocalAction> pendingAfter,
      long started)
      throws CommandRejectedException {
    for (int conflicts = 0; ; conflicts++) {
      try {
        // The request id is checked again after each adoption: a retry sent to another node may
        // have won meanwhile.
        return attempt(actor, reason, requestId, c, started, marks, Reach.CLUSTER, pendingAfter);
      } catch (SharedConflict e) {
        catchUpTo(e.latest);
        if (conflicts + 1 >= MAX_CONFLICTS) {
          throw CommandRejectedException.conflict(
              "the shared state changed "
                  + MAX_CONFLICTS
                  + " times while this command was being applied; nothing changed, send it again");
        }
      }
    }
  }

  /**
   * Applies a safety action on this node alone while the shared store is unreachable: journalled
   * and audited here (marked {@code local}), kept as a {@link LocalAction} to apply again on
   * reconnect. Called with the writer lock held.
   */
  private CommandResult locally(
      Actor actor,
      String reason,
      String requestId,
      Command c,
      LocalAction.Kind kind,
      long started,
      ClusterUnreachableException why)
      throws CommandRejectedException {
    if (!localInState) {
      reapplyLocally();
    }
    ControlState cs = state;
    if (requestId != null) {
      CommandResult first = cs.request(requestId);
      if (first != null) {
        return first;
      }
    }
    long now = ticker.currentTimeMillis();
    Outcome o = c.apply(cs, now);
    if (o.next() == cs) {
      return unchanged(requestId, o.message());
    }
    // The id makes applying it to the cluster again after a crash a no-op; unique per action.
    String id = requestId != null ? requestId : "local-" + shared.node() + "-" + UUID.randomUUID();
    LocalAction a = new LocalAction(kind, o.service(), actor.name(), actor.role(), reason, id, now);
    List<LocalAction> pending = new ArrayList<>(localActions);
    pending.add(a);
    LOG.log(
        System.Logger.Level.WARNING,
        "{0} applied on this node only; it is applied to the cluster once the store is back: {1}",
        o.action(),
        why.getMessage());
    Outcome here =
        new Outcome(
            o.next(),
            o.action(),
            o.service(),
            o.message()
                + " (on this node only: the cluster store is unreachable; applied to every node"
                + " on reconnect, over whatever changed meanwhile)",
            o.details(),
            o.finished());
    return apply(
        actor,
        reason,
        id,
        here,
        started,
        Map.of("local", true, "cluster", why.getMessage()),
        Reach.NODE,
        pending);
  }

  private ClusterUnreachableException unreachable(String problem, Throwable cause) {
    return ClusterUnreachableException.of(
        shared.describe(),
        problem == null ? "not reached yet" : problem,
        "the command was not applied on any node and this node keeps answering from its last"
            + " known state (rollback and freeze still apply on this node)",
        cause);
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

  /**
   * Applies a controller step (if it changes anything) as the controller. In a cluster it commits
   * only while this node holds the leader key and reaches the store; otherwise the step is dropped
   * (a later tick computes it again from the state then in effect).
   */
  void controllerStep(Outcome o) {
    if (o == null || o.next() == state) {
      return;
    }
    if (shared == null) {
      apply(Actor.CONTROLLER, o.message(), null, o, System.nanoTime(), Map.of(), Reach.NODE, null);
      return;
    }
    if (!shared.connectivity().connected() || !localActions.isEmpty()) {
      return; // cut off: never change answers on this node's own
    }
    try {
      apply(
          Actor.CONTROLLER,
          o.message(),
          null,
          o,
          System.nanoTime(),
          Map.of(),
          Reach.CLUSTER,
          localActions);
    } catch (SharedConflict e) {
      try {
        catchUpTo(e.latest);
      } catch (ClusterUnreachableException u) {
        // Caught up by the next sync.
      }
    } catch (NotLeader | ClusterUnreachableException e) {
      LOG.log(System.Logger.Level.DEBUG, "controller step {0} not committed: {1}", o.action(), e);
    }
  }

  /** Why the store is unhealthy, or empty when its last write succeeded. */
  Optional<String> problem() {
    return Optional.ofNullable(problem);
  }

  /**
   * Makes one change durable and audited, then publishes it: validate (done by the caller) → (in a
   * cluster: commit to the shared store →) journal record with its audit event (one fsync) → audit
   * log line → publish → reply. Versions are assigned under the snapshot store's writer lock, so
   * the audit event names the exact version that answers follow. {@code marks} are added to the
   * audit details; {@code pendingAfter} are the safety actions still owed to the cluster after it.
   */
  /**
   * Runs {@code c} once on the current state: the first result of an already applied request id,
   * the answer to a command that changes nothing, or the change made durable and published. Called
   * with the writer lock held.
   */
  private CommandResult attempt(
      Actor actor,
      String reason,
      String requestId,
      Command c,
      long started,
      Map<String, Object> marks,
      Reach reach,
      List<LocalAction> pendingAfter)
      throws CommandRejectedException {
    ControlState cs = state;
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
    return apply(actor, reason, requestId, o, started, marks, reach, pendingAfter);
  }

  private CommandResult apply(
      Actor actor,
      String reason,
      String requestId,
      Outcome o,
      long startedNanos,
      Map<String, Object> marks,
      Reach reach,
      List<LocalAction> pendingAfter) {
    if (!catchUp()) {
      // An unaudited change must not be followed by more: the journal keeps only the last event.
      throw StoreUnavailableException.still(problem);
    }
    ControlState revised = o.next().nextRevision();
    long now = ticker.currentTimeMillis();
    CommandResult[] result = new CommandResult[1];
    Change change = new Change(actor, reason, o, now, startedNanos, marks, reach, pendingAfter);
    try {
      store.update(
          s -> s.withTraffic(PlanProjection.project(revised, s.config())),
          versioned -> {
            CommandResult r = new CommandResult(versioned.version(), true, o.message());
            ControlState next = requestId == null ? revised : revised.withRequest(requestId, r);
            persist(change, next, versioned);
            result[0] = r;
          });
    } catch (IOException e) {
      StoreUnavailableException failure =
          StoreUnavailableException.of(
              log.location(), e, "the change was not applied and nothing was published");
      unhealthy(failure.getMessage(), e);
      throw failure;
    }
    publishedRevision = appliedRevision;
    unpublished = false;
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
    return result[0];
  }

  /** One change on its way to the journal: who, why, what, and where it must be committed. */
  private record Change(
      Actor actor,
      String reason,
      Outcome outcome,
      long now,
      long startedNanos,
      Map<String, Object> marks,
      Reach reach,
      List<LocalAction> pendingAfter) {}

  /**
   * Makes {@code next} (the state after the change) durable with its audit event and finished
   * switch records (one fsync), then writes the audit line and switch records from it. In a cluster
   * the shared store's commit comes first and is the commit point: a conflict or a lost leadership
   * throws before anything was written here; once committed there, a failed local write only makes
   * the local cache stale. Returns whether the audit and switch writes succeeded; a failed journal
   * write throws and leaves the state as it was.
   */
  private boolean persist(Change ch, ControlState next, Snapshot versioned) throws IOException {
    Outcome o = ch.outcome();
    long effectiveNanos = System.nanoTime() - ch.startedNanos();
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
    details.putAll(ch.marks());
    if (ch.actor().scope() != null) {
      // A scoped token's change names the scope it was made under.
      details.put("scope", ch.actor().scope().view());
    }
    String origin = shared == null ? null : shared.node();
    if (origin != null) {
      details.put("origin", origin);
    }
    AuditEvent event =
        new AuditEvent(
            0,
            ch.now(),
            ch.actor().name(),
            ch.actor().role(),
            o.action(),
            o.service(),
            ch.reason() == null ? o.message() : ch.reason(),
            versioned.version() - 1,
            versioned.version(),
            details);
    JournalEntry entry = new JournalEntry(next, event, finished, origin, 0, List.of());
    long revision = appliedRevision;
    List<LocalAction> pending = ch.pendingAfter() == null ? List.of() : ch.pendingAfter();
    if (ch.reach() == Reach.CLUSTER) {
      revision = commitShared(entry, ch.actor() == Actor.CONTROLLER);
      cache(entry.local(revision, pending), true);
    } else {
      cache(shared == null ? entry : entry.local(revision, pending), false);
    }
    state = next;
    appliedRevision = revision;
    localActions = pending;
    boolean written = writeAudit(event, Switches.concerning(next, o.service(), finished));
    return (finished.isEmpty() || writeSwitches(finished)) && written;
  }

  /** Commits {@code entry} to the shared store against the applied revision; its new revision. */
  private long commitShared(JournalEntry entry, boolean controllerStep) throws IOException {
    SharedStateLog.Commit c =
        shared.commitIf(appliedRevision, json.writeValueAsBytes(entry), controllerStep);
    if (c instanceof SharedStateLog.Committed k) {
      return k.revision();
    }
    if (c instanceof SharedStateLog.Conflict k) {
      throw new SharedConflict(k.latest());
    }
    throw new NotLeader(((SharedStateLog.NotLeader) c).leader());
  }

  /**
   * Writes {@code entry} to the local journal. When the shared store already holds it ({@code
   * committed}), a failed write only leaves the local cache behind and is reported, not thrown: the
   * change is in effect on every other node and must be here too.
   */
  private void cache(JournalEntry entry, boolean committed) throws IOException {
    try {
      log.commit(json.writeValueAsBytes(entry));
      cached = entry;
    } catch (IOException e) {
      if (!committed) {
        throw e;
      }
      unhealthy(
          StoreUnavailableException.of(
                  log.location(),
                  e,
                  "the change is committed to the cluster and in effect; this node's local copy of"
                      + " it is behind until the next write")
              .getMessage(),
          e);
    }
  }

  /** Another node committed first; {@code latest} is the newest record (null: none). */
  private static final class SharedConflict extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient SharedStateLog.Entry latest;

    SharedConflict(SharedStateLog.Entry latest) {
      super("the shared state changed meanwhile", null, false, false);
      this.latest = latest;
    }
  }

  /** A controller step refused because another node (or none) holds the leader key. */
  private static final class NotLeader extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotLeader(String leader) {
      super("this node does not lead (leader: " + leader + ")", null, false, false);
    }
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
    if (reaction.isEmpty()
        || !catchUp()
        || (shared != null && (!shared.connectivity().connected() || !localActions.isEmpty()))) {
      // A cut-off node publishes the verdicts but never reacts to them on its own.
      return HealthPublisher.direct(store).publish(health, recorded);
    }
    ControlState last = reaction.get(reaction.size() - 1).next();
    long now = ticker.currentTimeMillis();
    HealthPublisher.Published[] out = new HealthPublisher.Published[1];
    boolean[] told = new boolean[1];
    Reach reach = shared == null ? Reach.NODE : Reach.CLUSTER;
    SharedConflict conflict = null;
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
              Change ch =
                  new Change(
                      Actor.CONTROLLER,
                      null,
                      o,
                      now,
                      System.nanoTime(),
                      Map.of(),
                      reach,
                      localActions);
              if (!persist(ch, o.next(), versioned)) {
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
    } catch (SharedConflict e) {
      conflict = e;
    } catch (NotLeader | ClusterUnreachableException e) {
      // Not this node's step to take (or not now): the verdicts are published without it.
      LOG.log(System.Logger.Level.DEBUG, "reaction to verdicts not committed: {0}", e);
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
      if (conflict != null) {
        try {
          catchUpTo(conflict.latest);
        } catch (ClusterUnreachableException e) {
          // Caught up by the next sync.
        }
      }
    } else if (caughtUp()) {
      healthy();
    }
    publishedRevision = appliedRevision;
    return out[0];
  }

  // ---------------------------------------------------------------- the cluster's shared state

  /** The shared store's revision of the state in effect here (0: none, or a single node). */
  long appliedRevision() {
    return publishedRevision;
  }

  /** The safety actions applied while cut off and not yet applied to the cluster. */
  List<LocalAction> localActions() {
    return localActions;
  }

  /** The shared store, or null on a single node. */
  SharedStateLog shared() {
    return shared;
  }

  /** How the commands of safety actions are rebuilt when they are applied to the cluster. */
  void localCommands(Function<LocalAction, Command> commands) {
    this.localCommands = commands;
  }

  /** Runs {@code r} (under the writer lock) after each adopted record of the shared state. */
  void afterAdopt(Runnable r) {
    this.adopted = r;
  }

  /**
   * Catches up with the shared store (a linearizable read of the newest record, then every record
   * since the applied one, in order), bootstraps an empty store with this node's state, and applies
   * the safety actions of a cut on top. Nothing new is applied before this returns.
   *
   * @throws ClusterUnreachableException when the store cannot be reached
   */
  void syncWithCluster() {
    if (shared == null) {
      return;
    }
    lock.lock();
    try {
      syncLocked();
    } finally {
      lock.unlock();
    }
  }

  /** Adopts a record heard from the shared store, unless this node already applied it. */
  void adoptHeard(SharedStateLog.Entry e) {
    lock.lock();
    try {
      if (e.revision() <= appliedRevision) {
        return;
      }
      if (!localActions.isEmpty()) {
        // Back after a cut: catch up from the store and apply what was done meanwhile on top.
        syncLocked();
        return;
      }
      adopt(e, null, true);
    } finally {
      lock.unlock();
    }
  }

  private void syncLocked() {
    try {
      Optional<SharedStateLog.Entry> latest = shared.latest();
      if (latest.isEmpty()) {
        bootstrap();
      } else {
        catchUpTo(latest.get());
      }
      if (!localActions.isEmpty()) {
        reconcile();
      }
    } finally {
      if (!localActions.isEmpty() && !localInState) {
        // Cut again before every safety action reached the cluster: they stay in effect here.
        reapplyLocally();
      }
      if (unpublished) {
        store.update(s -> s.withTraffic(PlanProjection.project(state, s.config())));
        unpublished = false;
        publishedRevision = appliedRevision;
      }
    }
  }

  /**
   * Applies the pending safety actions on this node again, on top of the shared state adopted
   * meanwhile (audited {@code local} and {@code reapplied}); they stay pending for the cluster.
   */
  private void reapplyLocally() {
    for (LocalAction a : localActions) {
      Command c = localCommands.apply(a);
      try {
        Outcome o = c == null ? null : c.apply(state, ticker.currentTimeMillis());
        if (o != null && o.next() != state) {
          apply(
              new Actor(a.actor(), a.role()),
              a.reason(),
              null,
              o,
              System.nanoTime(),
              Map.of("local", true, "reapplied", true),
              Reach.NODE,
              localActions);
        }
      } catch (CommandRejectedException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "{0} made on this node while cut off no longer applies: {1}",
            a.kind(),
            e.getMessage());
      }
    }
    localInState = true;
  }

  /**
   * Adopts every record up to {@code latest} in order, each with its audit line; when the store no
   * longer holds those between (compacted) or they do not come in time, adopts {@code latest} and
   * says which revisions' audit lines were made elsewhere and are not in this node's log.
   */
  private void catchUpTo(SharedStateLog.Entry latest) {
    if (latest == null) {
      syncLocked();
      return;
    }
    if (latest.revision() == appliedRevision && !localActions.isEmpty()) {
      // The state here has the safety actions of a cut applied locally: go back to the shared
      // record (its audit line is written already) before they are applied to it.
      adopt(latest, null, false);
      return;
    }
    if (latest.revision() <= appliedRevision) {
      if (latest.revision() < appliedRevision) {
        // The store holds less than this node applied: it was replaced. Its record is the truth.
        adopt(latest, "the shared store was reset below revision " + appliedRevision, true);
      }
      return;
    }
    List<SharedStateLog.Entry> between = history(appliedRevision, latest.revision());
    if (between == null) {
      String gap = (appliedRevision + 1) + ".." + (latest.revision() - 1);
      LOG.log(
          System.Logger.Level.WARNING,
          "shared state revisions {0} are no longer in the store: adopting revision {1}; the audit"
              + " lines of changes made elsewhere in that range are not in the log of this node",
          gap,
          latest.revision());
      adopt(latest, gap, true);
      return;
    }
    for (SharedStateLog.Entry e : between) {
      if (e.revision() > appliedRevision) {
        adopt(e, null, true);
      }
    }
  }

  /**
   * The records committed after {@code after} up to {@code upTo}, in order, or null when the store
   * no longer holds them all or they do not come within {@link #HISTORY_WAIT_MILLIS}.
   */
  private List<SharedStateLog.Entry> history(long after, long upTo) {
    BlockingQueue<Optional<SharedStateLog.Entry>> heard = new LinkedBlockingQueue<>();
    List<SharedStateLog.Entry> out = new ArrayList<>();
    try (AutoCloseable w =
        shared.watch(
            after,
            new SharedStateLog.Listener() {
              @Override
              public void entry(SharedStateLog.Entry e) {
                heard.add(Optional.of(e));
              }

              @Override
              public void compacted(long compactedRevision) {
                heard.add(Optional.empty());
              }
            })) {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HISTORY_WAIT_MILLIS);
      while (out.isEmpty() || out.get(out.size() - 1).revision() < upTo) {
        Optional<SharedStateLog.Entry> e =
            heard.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (e == null || e.isEmpty()) {
          return null;
        }
        out.add(e.get());
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      LOG.log(
          System.Logger.Level.WARNING, "reading the history of the shared state failed: {0}", e);
      return null;
    }
  }

  /**
   * Makes a record of the shared store this node's state: local journal → its audit line (naming
   * the node it came from, at this node's snapshot versions) and switch records → publish. {@code
   * gap} names the revisions skipped to reach it, when some were; {@code audited}: whether its
   * audit line and switch records are still to be written.
   */
  private void adopt(SharedStateLog.Entry e, String gap, boolean audited) {
    JournalEntry j;
    try {
      j = JournalEntry.decode(json, e.bytes());
    } catch (IOException x) {
      LOG.log(
          System.Logger.Level.ERROR,
          "shared state revision " + e.revision() + " cannot be read; keeping the state in effect",
          x);
      return;
    }
    ControlState next = j.state();
    boolean owed = !localActions.isEmpty();
    SnapshotStore.BeforePublish<IOException> record =
        versioned -> {
          AuditEvent event =
              j.audit() == null || !audited
                  ? null
                  : heard(j, e.revision(), gap, versioned.version() - 1);
          cache(
              new JournalEntry(next, event, j.switches(), j.origin(), e.revision(), localActions),
              true);
          state = next;
          appliedRevision = e.revision();
          if (event != null) {
            writeAudit(event, Switches.concerning(next, event.service(), j.switches()));
          }
          if (audited && !j.switches().isEmpty()) {
            writeSwitches(j.switches());
          }
        };
    try {
      if (owed) {
        // The safety actions of a cut are applied on top before anything is published.
        record.accept(store.current());
        unpublished = true;
        localInState = false;
      } else {
        store.update(s -> s.withTraffic(PlanProjection.project(next, s.config())), record);
        publishedRevision = appliedRevision;
      }
    } catch (IOException x) {
      // cache() reports instead of throwing for a committed record; nothing else here throws.
      LOG.log(System.Logger.Level.ERROR, "adopting shared state revision failed", x);
    }
    adopted.run();
  }

  /** The audit event of an adopted record as this node logs it. */
  private static AuditEvent heard(JournalEntry j, long revision, String gap, long versionBefore) {
    AuditEvent a = j.audit();
    Map<String, Object> details = new LinkedHashMap<>(a.details() == null ? Map.of() : a.details());
    if (j.origin() != null) {
      details.putIfAbsent("origin", j.origin());
    }
    details.put("sharedRevision", revision);
    if (gap != null) {
      details.put("missedRevisions", gap);
    }
    return new AuditEvent(
        0,
        a.timeMillis(),
        a.actor(),
        a.role(),
        a.action(),
        a.service(),
        a.reason(),
        versionBefore,
        versionBefore + 1,
        details);
  }

  /** An empty shared store gets this node's state; the first node to commit it wins. */
  private void bootstrap() {
    long version = store.current().version();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("revision", state.revision());
    details.put("origin", shared.node());
    AuditEvent event =
        new AuditEvent(
            0,
            ticker.currentTimeMillis(),
            shared.node(),
            "system",
            "cluster-bootstrap",
            null,
            "the cluster's shared state was empty: it starts from this node's state",
            version,
            version,
            details);
    JournalEntry entry = new JournalEntry(state, event, List.of(), shared.node(), 0, List.of());
    SharedStateLog.Commit c;
    try {
      c = shared.commitIf(0, json.writeValueAsBytes(entry), false);
    } catch (IOException x) {
      throw new UncheckedIOException(x);
    }
    if (c instanceof SharedStateLog.Committed k) {
      try {
        cache(entry.local(k.revision(), localActions), true);
      } catch (IOException x) {
        throw new UncheckedIOException(x);
      }
      appliedRevision = k.revision();
      writeAudit(event);
      publishedRevision = appliedRevision;
      LOG.log(
          System.Logger.Level.INFO,
          "the shared state of the cluster was empty: it starts from the state of this node (revision {0})",
          k.revision());
    } else if (c instanceof SharedStateLog.Conflict k) {
      catchUpTo(k.latest());
    }
  }

  /**
   * Applies the safety actions made while cut off, oldest first, on top of the newest shared state
   * (each audited as {@code reconciled}); each leaves the pending list in the same journal record
   * that holds its effect. A rollback or freeze made during the cut thus wins over what happened
   * meanwhile. The request id of each makes a second attempt after a crash a no-op.
   */
  private void reconcile() {
    for (LocalAction a : List.copyOf(localActions)) {
      List<LocalAction> rest = new ArrayList<>(localActions);
      rest.remove(a);
      Command c = localCommands.apply(a);
      Map<String, Object> marks = new LinkedHashMap<>();
      marks.put("reconciled", true);
      marks.put("localAtMillis", a.atMillis());
      CommandResult r;
      try {
        r =
            c == null
                ? null
                : committed(
                    new Actor(a.actor(), a.role()),
                    a.reason(),
                    a.requestId(),
                    c,
                    marks,
                    List.copyOf(rest),
                    System.nanoTime());
      } catch (CommandRejectedException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "{0} made on this node while cut off cannot be applied to the cluster: {1}",
            a.kind(),
            e.getMessage());
        r = null;
      }
      if (r == null || !r.changed() || localActions.contains(a)) {
        // Nothing to commit (already in effect, or no longer valid): only the list changes.
        localActions = List.copyOf(rest);
        if (cached != null) {
          try {
            cache(cached.local(appliedRevision, localActions), false);
          } catch (IOException e) {
            unhealthy(
                StoreUnavailableException.of(
                        log.location(),
                        e,
                        "the list of safety actions owed to the cluster is stale")
                    .getMessage(),
                e);
          }
        }
      }
      LOG.log(
          System.Logger.Level.INFO,
          "{0} made on this node while cut off is applied to the cluster: {1}",
          a.kind(),
          r == null ? "dropped" : r.message());
    }
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
    return writeAudit(a, List.of());
  }

  /** Like {@link #writeAudit(AuditEvent)}; {@code switches} go to the audit log's listener. */
  private boolean writeAudit(AuditEvent a, List<SwitchRecord> switches) {
    try {
      audit.append(a, switches);
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
}
