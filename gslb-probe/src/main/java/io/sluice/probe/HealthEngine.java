package io.sluice.probe;

import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.HealthConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ProbeConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Opinion;
import io.sluice.core.health.ProbeEvidence;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.canary.CanaryWatch;
import io.sluice.probe.check.CheckFactory;
import io.sluice.probe.check.CheckResult;
import io.sluice.probe.check.CheckSource;
import io.sluice.probe.debounce.Layer;
import io.sluice.probe.debounce.Observation;
import io.sluice.probe.debounce.VantageTracker;
import io.sluice.probe.debounce.VerdictGate;
import io.sluice.probe.persist.VerdictFile;
import io.sluice.probe.quorum.QuorumCombiner;
import io.sluice.probe.quorum.QuorumResult;
import io.sluice.probe.quorum.VantageOpinion;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns check results from every vantage into published verdicts: per-vantage debounce, quorum
 * across vantages (ignoring stale vantages and those whose canaries fail), then cooldown and flap
 * damping. Changes are batched: the first change schedules one publish {@value #PUBLISH_DELAY_MS}
 * ms later, which builds a single snapshot (through the {@link HealthPublisher}, so the traffic
 * controller's reaction goes out in it too), appends the audit events with their evidence and saves
 * the verdicts. Everything here runs on the probe thread.
 *
 * <p>In a cluster the quorum also counts the opinions other nodes share through the {@link
 * OpinionExchange}, and this node shares the debounced opinions of the vantages it holds (its own
 * and the agents reporting to it): on a change only, plus a bounded RTT refresh, never raw results.
 * While the exchange is unreachable the verdicts are held as they are: a cut-off node never changes
 * its answers on its own evidence alone.
 */
final class HealthEngine {
  private static final Logger LOG = LoggerFactory.getLogger(HealthEngine.class);
  static final long PUBLISH_DELAY_MS = 100;
  static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final int CANARY_ATTEMPTS = 3;
  private static final String UNCHECKED = "no checks configured: served as up";

  /** One verdict change (or flap-damping hold) waiting to be audited. */
  private record Change(
      String key,
      String pool,
      Verdict from,
      Verdict to,
      String reason,
      String action,
      Map<String, Object> details) {}

  private final TaskScheduler ts;
  private final CheckSource checks;
  private final SnapshotStore store;
  private final HealthPublisher publisher;
  private final AuditSink audit;
  private final GslbMetrics metrics;
  private final ProbeScheduler scheduler;
  private final ClusterOpinions cluster;
  private String localVantage;
  private final Map<String, EndpointState> endpoints = new LinkedHashMap<>();
  private final Map<String, ProbeTarget> canaryTargets = new LinkedHashMap<>();
  private final Map<String, Long> vantageSeen = new HashMap<>();
  private final Map<String, EndpointHealth> dirty = new HashMap<>();
  private final Set<String> removed = new HashSet<>();
  private final List<Change> changes = new ArrayList<>();
  private final CountDownLatch initialRound = new CountDownLatch(1);
  private final List<String> uncheckedPools = new ArrayList<>();
  private SluiceConfig config;
  private ProbeConfig probes;
  private QuorumCombiner quorum;
  private CanaryWatch canaries;
  private VerdictFile verdictFile;
  private VerdictFile.Restored restored;
  private long appliedConfigVersion = -1;
  private boolean publishScheduled;
  private boolean verdictsChanged;
  private int awaitingFirstResult;
  private volatile ProbeStatus status = ProbeStatus.STARTING;
  private volatile Map<String, ProbeEvidence> evidence = Map.of();

  HealthEngine(
      TaskScheduler ts,
      CheckSource checks,
      SnapshotStore store,
      HealthPublisher publisher,
      AuditSink audit,
      GslbMetrics metrics,
      RandomGenerator random,
      OpinionExchange exchange) {
    this.ts = ts;
    this.cluster = new ClusterOpinions(exchange);
    this.checks = checks;
    this.store = store;
    this.publisher = publisher;
    this.audit = audit;
    this.metrics = metrics;
    int max = store.current().config().probes().maxInFlight();
    this.scheduler = new ProbeScheduler(ts, max, metrics, random, this::onLocal);
  }

  /** Starts from the store's current snapshot; call on the probe thread. */
  void start() {
    Snapshot s = store.current();
    verdictFile = new VerdictFile(s.config().stateDirectory());
    restored = verdictFile.load();
    LOG.info("probe: {}", restored.note());
    apply(s);
    // Restored verdicts are served at once, before any check has run.
    flush();
    ts.schedule(this::sweep, SWEEP_NANOS);
  }

  /** Applies a configuration version if it is new; call on the probe thread. */
  void apply(Snapshot s) {
    if (s.configVersion() == appliedConfigVersion) {
      return;
    }
    boolean first = appliedConfigVersion < 0;
    appliedConfigVersion = s.configVersion();
    config = s.config();
    probes = config.probes();
    localVantage = config.localVantage();
    cluster.configure(localVantage, config.clustered() ? config.cluster().region() : null);
    quorum = new QuorumCombiner(probes);
    if (canaries == null) {
      canaries = new CanaryWatch(probes.staleAfter().toNanos());
    }
    Set<String> keep = new HashSet<>();
    uncheckedPools.clear();
    config
        .pools()
        .forEach(
            (pool, p) -> {
              boolean anyChecked = false;
              for (EndpointConfig e : p.endpoints()) {
                String key = PoolConfig.endpointKey(pool, e);
                HealthConfig h = e.health() != null ? e.health() : p.health();
                keep.add(key);
                if (h.unchecked()) {
                  dropTargets(endpoints.remove(key));
                  EndpointHealth up = EndpointHealth.of(Verdict.UP, now(), UNCHECKED);
                  if (!UNCHECKED.equals(s.health().get(key).reason())) {
                    dirty.put(key, up);
                  }
                  continue;
                }
                anyChecked = true;
                EndpointState old = endpoints.get(key);
                if (old != null && old.sameChecks(e, h)) {
                  continue;
                }
                dropTargets(old);
                endpoints.put(key, create(key, pool, e, h, old, first));
              }
              if (!anyChecked) {
                uncheckedPools.add(pool);
              }
            });
    for (String key : List.copyOf(endpoints.keySet())) {
      if (!keep.contains(key)) {
        dropTargets(endpoints.remove(key));
      }
    }
    for (String key : s.health().all().keySet()) {
      if (!keep.contains(key)) {
        removed.add(key);
      }
    }
    Set<String> wantedCanaries = new HashSet<>(probes.canaries());
    for (String c : List.copyOf(canaryTargets.keySet())) {
      if (!wantedCanaries.contains(c)) {
        scheduler.remove(canaryTargets.remove(c));
      }
    }
    for (String c : probes.canaries()) {
      canaryTargets.computeIfAbsent(
          c,
          k -> {
            ProbeTarget t =
                new ProbeTarget(
                    k,
                    null,
                    CheckFactory.withAttempts(
                        checks.canary(k),
                        CANARY_ATTEMPTS,
                        CheckFactory.CANARY_TIMEOUT,
                        ts.ticker()),
                    SWEEP_NANOS);
            scheduler.add(t, true);
            return t;
          });
    }
    awaitingFirstResult = (int) endpoints.values().stream().filter(x -> !x.checkedOnce).count();
    if (awaitingFirstResult == 0) {
      initialRound.countDown();
    }
    schedulePublish();
  }

  private EndpointState create(
      String key, String pool, EndpointConfig e, HealthConfig h, EndpointState old, boolean first) {
    EndpointHealth published;
    VerdictGate gate;
    VerdictFile.Saved saved = first ? restored.verdicts().get(key) : null;
    if (old != null) {
      published = stale(old.published, "checks changed by a reload; re-checking");
      gate = new VerdictGate(h, old.gate.current(), true);
    } else if (saved != null && saved.verdict() != null) {
      published =
          new EndpointHealth(
              saved.verdict(),
              saved.sinceMillis(),
              "restored from the last run (" + saved.reason() + "); not yet re-checked",
              true,
              Double.NaN,
              Double.NaN,
              0);
      gate = new VerdictGate(h, saved.verdict(), true);
    } else {
      published =
          new EndpointHealth(
              Verdict.UNKNOWN,
              now(),
              restored.freshInstall()
                  ? "fresh install: no check has run yet"
                  : "no check has run yet",
              true,
              Double.NaN,
              Double.NaN,
              0);
      gate = new VerdictGate(h, Verdict.UNKNOWN, true);
    }
    dirty.put(key, published);
    EndpointState st = new EndpointState(key, pool, e, h, gate, published);
    // Until a first result comes, the evidence is as old as the endpoint's checks.
    st.lastResultMillis = ts.ticker().currentTimeMillis();
    if (h.heartbeat() != null) {
      st.heartbeat =
          target(
              key,
              Layer.HEARTBEAT,
              h.heartbeat(),
              e,
              HealthConfig.HEARTBEAT_INTERVAL,
              HealthConfig.HEARTBEAT_TIMEOUT,
              h.attempts(),
              h.fullLink() == null);
    }
    if (h.fullLink() != null) {
      st.fullLink =
          target(
              key,
              Layer.FULL_LINK,
              h.fullLink(),
              e,
              HealthConfig.FULL_LINK_INTERVAL,
              HealthConfig.FULL_LINK_TIMEOUT,
              h.attempts(),
              true);
    }
    st.tracker(localVantage);
    return st;
  }

  private ProbeTarget target(
      String key,
      Layer layer,
      CheckConfig c,
      EndpointConfig e,
      Duration interval,
      Duration timeout,
      int attempts,
      boolean urgent) {
    ProbeTarget t =
        new ProbeTarget(
            key,
            layer,
            CheckFactory.withAttempts(
                checks.create(c, e.address(), timeout),
                attempts,
                c.timeoutOr(timeout),
                ts.ticker()),
            c.intervalOr(interval).toNanos());
    scheduler.add(t, urgent);
    return t;
  }

  private void dropTargets(EndpointState st) {
    if (st == null) {
      return;
    }
    cluster.withdrawAll(st);
    if (st.heartbeat != null) {
      scheduler.remove(st.heartbeat);
    }
    if (st.fullLink != null) {
      scheduler.remove(st.fullLink);
    }
  }

  private static EndpointHealth stale(EndpointHealth h, String reason) {
    return new EndpointHealth(
        h.verdict(),
        h.sinceMillis(),
        reason,
        true,
        h.rttP50Millis(),
        h.rttP99Millis(),
        h.errorRate(),
        h.results(),
        h.failures(),
        h.regionRttMillis());
  }

  /** A local check finished. */
  private void onLocal(ProbeTarget t, CheckResult r) {
    long now = ts.ticker().nanoTime();
    String local = localVantage;
    if (t.canary()) {
      if (canaries.record(local, t.key(), r.ok(), now)) {
        pathChanged(local, t.key() + ": " + (r.ok() ? "passing" : r.error()));
      }
      return;
    }
    EndpointState st = endpoints.get(t.key());
    if (st == null || (t != st.heartbeat && t != st.fullLink)) {
      return;
    }
    Observation o =
        new Observation(
            local, t.kind(), r.ok(), r.rttMillis(), r.error(), ts.ticker().currentTimeMillis());
    st.latency.add(r.ok(), r.rttMillis());
    st.lastResultMillis = o.atMillis();
    VantageTracker tracker = st.tracker(local);
    boolean fast = tracker.record(t.layer(), o, now);
    if (t == st.deciding() && !st.checkedOnce) {
      st.checkedOnce = true;
      if (--awaitingFirstResult <= 0) {
        initialRound.countDown();
      }
    }
    evaluate(st, now);
    // While the cooldown holds back what this vantage sees, keep confirming at the fast cadence
    // so that overwhelming evidence (cooldownBreak results in a row) can end it early.
    Verdict opinion = tracker.opinion();
    boolean blocked =
        opinion == Verdict.DOWN
            && opinion != st.gate.current()
            && !st.gate.held(now)
            && tracker.streakFor(opinion) < st.health.cooldownBreak();
    if (fast || blocked) {
      // A failed heartbeat has already waited out its own timeout: confirm with the deciding
      // check at once; the deciding check's own failures are re-run after the fast delay.
      long fastNanos = st.health.fastRecheck().toNanos();
      scheduler.recheck(
          st.deciding(), t == st.deciding() ? fastNanos : 0, fastNanos, st.health.downAfter());
    }
  }

  /** A validated report from a remote vantage arrived at {@code receivedNanos}. */
  void onReport(ProbeReport report, long receivedNanos) {
    String v = report.vantage();
    vantageSeen.put(v, ts.ticker().currentTimeMillis());
    Set<EndpointState> touched = new HashSet<>();
    boolean pathChanged = false;
    for (ProbeReport.Result res : report.results()) {
      if ("canary".equals(res.check())) {
        if (canaries.record(v, res.endpoint(), res.ok(), receivedNanos)) {
          pathChanged = true;
        }
        continue;
      }
      EndpointState st = endpoints.get(res.endpoint());
      Layer layer = Layer.fromWireName(res.check());
      if (st == null || layer == null) {
        continue;
      }
      st.lastResultMillis = ts.ticker().currentTimeMillis();
      st.tracker(v)
          .record(
              layer,
              new Observation(
                  v, res.check(), res.ok(), res.rttMillis(), res.error(), report.timeMillis()),
              receivedNanos);
      touched.add(st);
    }
    if (pathChanged) {
      pathChanged(v, "reported by the vantage");
    } else {
      for (EndpointState st : touched) {
        evaluate(st, receivedNanos);
      }
    }
  }

  private void pathChanged(String vantage, String detail) {
    boolean ok = canaries.pathOk(vantage);
    metrics.probePathImpaired(vantage, !ok);
    String reason =
        ok
            ? "probe path of vantage '" + vantage + "' restored: its results count again"
            : "probe path of vantage '"
                + vantage
                + "' impaired: every canary fails, its results count as unknown";
    if (ok) {
      LOG.info("{} ({})", reason, detail);
    } else {
      LOG.warn("{} ({})", reason, detail);
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("vantage", vantage);
    details.put("canaries", probes.canaries());
    details.put("detail", detail);
    changes.add(
        new Change(
            null,
            null,
            null,
            null,
            reason,
            ok ? "probe-path-restored" : "probe-path-impaired",
            details));
    long now = ts.ticker().nanoTime();
    for (EndpointState st : endpoints.values()) {
      evaluate(st, now);
    }
    schedulePublish();
  }

  private void evaluate(EndpointState st, long now) {
    long staleNanos = probes.staleAfter().toNanos();
    cluster.share(st, canaries, now, staleNanos, ts.ticker().currentTimeMillis());
    List<VantageOpinion> opinions = new ArrayList<>(st.trackers.size());
    for (Map.Entry<String, VantageTracker> e : st.trackers.entrySet()) {
      VantageTracker t = e.getValue();
      Verdict o = t.opinion();
      opinions.add(
          new VantageOpinion(
              e.getKey(),
              o,
              t.streakFor(o),
              t.fresh(now, staleNanos),
              canaries.pathOk(e.getKey())));
    }
    Map<String, Opinion> others = cluster.of(st, now, staleNanos);
    for (Opinion o : others.values()) {
      opinions.add(new VantageOpinion(o.vantage(), o.opinion(), o.streak(), true, o.pathOk()));
    }
    if (!cluster.connected()) {
      // Cut off from the other nodes: this node's own evidence alone never changes an answer.
      return;
    }
    QuorumResult q = quorum.combine(opinions);
    st.lastVotes = q;
    if (q.verdict() == Verdict.UNKNOWN) {
      if (!st.published.stale() && st.checkedOnce) {
        publish(
            st,
            stale(
                st.published,
                "no fresh evidence: " + q.summary() + "; keeping " + st.published.verdict()));
      }
      return;
    }
    Verdict before = st.gate.current();
    VerdictGate.Outcome out = st.gate.propose(q.verdict(), q.streak(), now);
    if (out.retryAtNanos() > now && out.retryAtNanos() != st.retryAtNanos) {
      st.retryAtNanos = out.retryAtNanos();
      ts.schedule(
          () -> {
            if (endpoints.get(st.key) == st) {
              evaluate(st, ts.ticker().nanoTime());
            }
          },
          out.retryAtNanos() - now);
    }
    Verdict after = out.verdict();
    boolean flapHold = out.startsFlapHold();
    if (after == before && !flapHold) {
      // A change held back (cooldown, flap damping) is shown in the reason, so status says why.
      String reason =
          out.reason() == null
              ? null
              : "change to " + q.verdict() + " held back by " + out.reason() + "; " + q.summary();
      // In a cluster the votes change as other nodes' opinions come and go: the reason follows
      // them, so status never shows one vantage where three vote.
      boolean votesMoved = cluster.clustered() && !q.summary().equals(st.votes);
      if (st.published.stale()
          || st.published.verdict() != after
          || (reason != null && !reason.equals(st.published.reason()))
          || votesMoved) {
        st.votes = q.summary();
        publish(
            st,
            health(
                st,
                after,
                st.published.sinceMillis(),
                reason != null ? reason : reasonFor(after, q, null, st)));
      }
      return;
    }
    String reason =
        flapHold
            ? "held " + after + " by " + out.reason() + " (now: " + q.summary() + ")"
            : reasonFor(after, q, out.reason(), st);
    long since = after == before ? st.published.sinceMillis() : ts.ticker().currentTimeMillis();
    st.votes = q.summary();
    publish(st, health(st, after, since, reason));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("endpoint", st.key);
    details.put("pool", st.pool);
    details.put("from", before.name());
    details.put("to", after.name());
    details.put("votes", q.summary());
    if (flapHold) {
      details.put("holdUntilMillis", toMillis(st.gate.holdUntilNanos(), now));
    }
    List<Map<String, Object>> evidence = new ArrayList<>();
    for (VantageOpinion o : opinions) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("vantage", o.vantage());
      v.put("opinion", o.opinion().name());
      v.put("fresh", o.fresh());
      v.put("pathOk", o.pathOk());
      Opinion shared = others.get(o.vantage());
      if (shared != null) {
        // Another node's opinion: its raw results stay with that node.
        v.put("via", shared.via());
        v.put("sinceMillis", shared.sinceMillis());
        v.put("streak", shared.streak());
      } else {
        v.put(
            "recent",
            st.trackers.get(o.vantage()).recent().stream().map(Observation::toMap).toList());
      }
      evidence.add(v);
    }
    details.put("evidence", evidence);
    changes.add(
        new Change(
            st.key,
            st.pool,
            before,
            after,
            reason,
            flapHold ? "flap-hold" : "verdict-change",
            details));
    if (after != before) {
      verdictsChanged = true;
    }
  }

  /** Every fresh opinion the other nodes share now (at start and after a reconnect). */
  void onRemoteReplaced(Collection<Opinion> all) {
    cluster.replaced(all);
    long now = ts.ticker().nanoTime();
    for (EndpointState st : endpoints.values()) {
      evaluate(st, now);
    }
  }

  /** Another node published or replaced an opinion. */
  void onRemoteChanged(Opinion o) {
    if (cluster.changed(o)) {
      reevaluate(o.endpoint());
    }
  }

  /** Another node withdrew an opinion, or it expired with that node's lease. */
  void onRemoteRemoved(String endpoint, String vantage) {
    if (cluster.removed(endpoints.get(endpoint), endpoint, vantage)) {
      reevaluate(endpoint);
    }
  }

  /**
   * The exchange became reachable or unreachable; on reconnect verdicts follow the quorum again.
   */
  void onConnection(OpinionExchange.Connection c) {
    boolean was = cluster.connected();
    if (cluster.connection(c)) {
      LOG.info("opinion exchange reachable: verdicts follow the cluster's quorum");
    }
    if (c.connected()) {
      long now = ts.ticker().nanoTime();
      for (EndpointState st : endpoints.values()) {
        evaluate(st, now);
      }
    } else if (was) {
      LOG.warn(
          "opinion exchange unreachable ({}): holding every verdict as it is until it is back",
          c.reason());
    }
    updateStatus();
  }

  private void reevaluate(String endpoint) {
    EndpointState st = endpoints.get(endpoint);
    if (st != null) {
      evaluate(st, ts.ticker().nanoTime());
    }
  }

  private long toMillis(long nanos, long nowNanos) {
    return ts.ticker().currentTimeMillis() + (nanos - nowNanos) / 1_000_000L;
  }

  private static String reasonFor(Verdict v, QuorumResult q, String gateReason, EndpointState st) {
    String base =
        switch (v) {
          case DOWN -> "full-link failing: " + q.summary();
          case SUSPECT -> "heartbeat failing while full-link passes: " + q.summary();
          case UP -> "passing: " + q.summary();
          case UNKNOWN -> q.summary();
        };
    String lastError = null;
    if (v != Verdict.UP) {
      for (VantageTracker t : st.trackers.values()) {
        for (Observation o : t.recent()) {
          if (!o.ok() && o.error() != null) {
            lastError = o.error();
          }
        }
      }
    }
    StringBuilder sb = new StringBuilder(base);
    if (lastError != null) {
      sb.append("; last error: ").append(lastError);
    }
    if (gateReason != null) {
      sb.append("; ").append(gateReason);
    }
    return sb.toString();
  }

  private EndpointHealth health(EndpointState st, Verdict v, long since, String reason) {
    return new EndpointHealth(
        v,
        since,
        reason,
        false,
        st.latency.percentile(0.5),
        st.latency.percentile(0.99),
        st.latency.errorRate(),
        st.latency.results(),
        st.latency.failures(),
        cluster.regionRtt(st, canaries, ts.ticker().nanoTime(), probes.staleAfter().toNanos()));
  }

  private static boolean sameRtts(Map<String, Double> a, Map<String, Double> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    for (Map.Entry<String, Double> e : a.entrySet()) {
      if (!same(e.getValue(), b.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private void publish(EndpointState st, EndpointHealth h) {
    st.published = h;
    dirty.put(st.key, h);
    schedulePublish();
  }

  private void schedulePublish() {
    if (!publishScheduled && (!dirty.isEmpty() || !removed.isEmpty() || !changes.isEmpty())) {
      publishScheduled = true;
      ts.schedule(this::flush, TimeUnit.MILLISECONDS.toNanos(PUBLISH_DELAY_MS));
    }
  }

  /** Re-checks staleness and canaries, refreshes latency figures, and reschedules itself. */
  private void sweep() {
    long now = ts.ticker().nanoTime();
    for (String v : List.copyOf(vantageSeenAndLocal())) {
      if (canaries.refresh(v, now)) {
        pathChanged(v, "canary results went stale");
      }
    }
    for (EndpointState st : endpoints.values()) {
      evaluate(st, now);
      EndpointHealth p = st.published;
      double p50 = st.latency.percentile(0.5);
      double p99 = st.latency.percentile(0.99);
      double err = st.latency.errorRate();
      long results = st.latency.results();
      Map<String, Double> regions =
          cluster.regionRtt(st, canaries, now, probes.staleAfter().toNanos());
      // New results are published on every sweep so that ramp gates see the evidence grow.
      if (!same(p.rttP50Millis(), p50)
          || !same(p.rttP99Millis(), p99)
          || p.errorRate() != err
          || p.results() != results
          || !sameRtts(p.regionRttMillis(), regions)) {
        publish(
            st,
            new EndpointHealth(
                p.verdict(),
                p.sinceMillis(),
                p.reason(),
                p.stale(),
                p50,
                p99,
                err,
                results,
                st.latency.failures(),
                regions));
      }
    }
    updateStatus();
    ts.schedule(this::sweep, SWEEP_NANOS);
  }

  private Set<String> vantageSeenAndLocal() {
    Set<String> all = new HashSet<>(vantageSeen.keySet());
    canaries.vantages().forEach(all::add);
    return all;
  }

  private static boolean same(double a, double b) {
    return Objects.equals(a, b) || Math.abs(a - b) < 0.05;
  }

  /** Publishes everything pending as one snapshot, then audits and saves. */
  void flush() {
    publishScheduled = false;
    Map<String, EndpointHealth> batch = Map.copyOf(dirty);
    Set<String> gone = Set.copyOf(removed);
    dirty.clear();
    removed.clear();
    List<Change> events = List.copyOf(changes);
    changes.clear();
    // Through the publisher, so that what the verdicts cause (a failover, the short TTL) goes out
    // in the same snapshot as the verdicts themselves; their events are recorded before its.
    publisher.publish(h -> h.withAll(batch, gone), published -> record(events, published));
    if (verdictsChanged) {
      verdictsChanged = false;
      save();
    }
    updateStatus();
  }

  /** Audits, counts and logs the verdict changes of a batch published as {@code p}. */
  private void record(List<Change> events, HealthPublisher.Published p) {
    for (Change c : events) {
      // A first "up" after start is no news: auditing it would write one event per endpoint.
      boolean firstUp = c.from() == Verdict.UNKNOWN && c.to() == Verdict.UP;
      if (!firstUp) {
        audit.append(
            Actor.PROBE,
            c.action(),
            null,
            c.reason(),
            p.versionBefore(),
            p.after().version(),
            c.details());
      }
      if (c.key() != null && c.from() != c.to()) {
        metrics.verdictChange(c.key(), c.from().name(), c.to().name());
        if (firstUp) {
          LOG.debug("verdict {}: {} -> {} ({})", c.key(), c.from(), c.to(), c.reason());
        } else {
          LOG.info("verdict {}: {} -> {} ({})", c.key(), c.from(), c.to(), c.reason());
        }
      } else if (c.key() != null) {
        LOG.warn("{} {}: {}", c.action(), c.key(), c.reason());
      }
    }
  }

  private void save() {
    Map<String, VerdictFile.Saved> all = new LinkedHashMap<>();
    for (EndpointState st : endpoints.values()) {
      if (st.gate.current() != Verdict.UNKNOWN) {
        all.put(
            st.key,
            new VerdictFile.Saved(
                st.gate.current(), st.published.sinceMillis(), st.published.reason()));
      }
    }
    try {
      verdictFile.save(all, ts.ticker().currentTimeMillis());
    } catch (IOException e) {
      LOG.warn("cannot save verdicts to {}: {}", verdictFile.path(), e.getMessage());
    }
  }

  private void updateStatus() {
    long now = ts.ticker().nanoTime();
    long nowMillis = ts.ticker().currentTimeMillis();
    List<ProbeStatus.VantageStatus> vs = new ArrayList<>();
    vs.add(
        new ProbeStatus.VantageStatus(
            localVantage, true, canaries.pathOk(localVantage), nowMillis));
    long staleMillis = probes.staleAfter().toMillis();
    vantageSeen.forEach(
        (v, at) ->
            vs.add(
                new ProbeStatus.VantageStatus(
                    v, nowMillis - at <= staleMillis, canaries.pathOk(v), at)));
    cluster.heard().stream()
        .filter(o -> !vantageSeen.containsKey(o.vantage()))
        .forEach(
            o ->
                vs.add(
                    new ProbeStatus.VantageStatus(
                        o.vantage(), true, o.pathOk(), o.sinceMillis(), o.via())));
    List<ProbeStatus.HeldEndpoint> held = new ArrayList<>();
    Map<String, ProbeEvidence> ev = new HashMap<>();
    for (EndpointState st : endpoints.values()) {
      ev.put(st.key, evidence(st));
      if (st.gate.held(now)) {
        held.add(
            new ProbeStatus.HeldEndpoint(
                st.key, st.gate.current().name(), toMillis(st.gate.holdUntilNanos(), now)));
      }
    }
    int targets = scheduler.targets();
    ScheduleLag.Summary lag = scheduler.lag();
    status =
        new ProbeStatus(
            localVantage,
            restored.note(),
            restored.freshInstall(),
            initialRound.getCount() == 0,
            endpoints.size(),
            targets,
            scheduler.inFlight(),
            scheduler.queued(),
            scheduler.completed(),
            lag.p50Millis(),
            lag.p99Millis(),
            lag.maxMillis(),
            uncheckedPools,
            vs,
            held,
            cluster.status());
    evidence = Map.copyOf(ev);
  }

  ProbeStatus status() {
    return status;
  }

  /** Per checked endpoint, the votes behind its verdict and the time of its last result. */
  Map<String, ProbeEvidence> evidence() {
    return evidence;
  }

  private static ProbeEvidence evidence(EndpointState st) {
    QuorumResult q = st.lastVotes;
    if (q == null) {
      return new ProbeEvidence(0, 0, st.lastResultMillis);
    }
    int agreeing =
        switch (st.published.verdict()) {
          case UP -> q.up();
          case SUSPECT -> q.suspect();
          case DOWN -> q.down();
          case UNKNOWN -> 0;
        };
    return new ProbeEvidence(q.eligible(), agreeing, st.lastResultMillis);
  }

  CountDownLatch initialRound() {
    return initialRound;
  }

  int inFlight() {
    return scheduler.inFlight();
  }

  private long now() {
    return ts.ticker().currentTimeMillis();
  }
}
