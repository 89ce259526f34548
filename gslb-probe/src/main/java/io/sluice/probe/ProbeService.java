package io.sluice.probe;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.AuditSink;
import io.sluice.core.health.Opinion;
import io.sluice.core.health.ProbeEvidence;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.core.spi.ProbeView;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.check.CheckFactory;
import io.sluice.probe.check.CheckSource;
import io.sluice.probe.quorum.ReportValidator;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The health checker of one node: runs the configured checks, accepts reports from remote vantages,
 * and publishes verdicts into the snapshot store. Follows configuration reloads (a new config
 * version in the store reschedules its targets). Close it to stop every check.
 */
public final class ProbeService implements AutoCloseable, ProbeView {
  private final SnapshotStore store;
  private final TaskScheduler ts;
  private final CheckSource checks;
  private final AutoCloseable ownChecks;
  private final HealthEngine engine;
  private final AutoCloseable ownScheduler;
  private final OpinionExchange exchange;
  private volatile boolean closed;
  private volatile ValidatorFor validator;

  private ProbeService(
      SnapshotStore store,
      HealthPublisher publisher,
      AuditSink audit,
      GslbMetrics metrics,
      TaskScheduler ts,
      RandomGenerator random,
      AutoCloseable ownScheduler,
      CheckSource source,
      OpinionExchange exchange) {
    this.store = store;
    this.exchange = exchange;
    this.ts = ts;
    this.ownScheduler = ownScheduler;
    CheckFactory own = source == null ? new CheckFactory(1) : null;
    this.ownChecks = own;
    this.checks = source == null ? own : source;
    this.engine = new HealthEngine(ts, checks, store, publisher, audit, metrics, random, exchange);
  }

  /** Starts probing on its own thread, with the real clock for scheduling. */
  public static ProbeService start(
      SnapshotStore store, AuditSink audit, GslbMetrics metrics, Ticker ticker) {
    return start(store, HealthPublisher.direct(store), audit, metrics, ticker);
  }

  /**
   * Starts probing on its own thread, with the real clock for scheduling, publishing verdicts
   * through {@code publisher} (the traffic system's, so its reaction goes out with them).
   */
  public static ProbeService start(
      SnapshotStore store,
      HealthPublisher publisher,
      AuditSink audit,
      GslbMetrics metrics,
      Ticker ticker) {
    return start(store, publisher, audit, metrics, ticker, OpinionExchange.NONE);
  }

  /**
   * Like {@link #start(SnapshotStore, HealthPublisher, AuditSink, GslbMetrics, Ticker)} for a node
   * of a cluster: the quorum also counts the opinions the other nodes share through {@code
   * exchange}, and this node shares its own there (the caller owns and closes the exchange).
   */
  public static ProbeService start(
      SnapshotStore store,
      HealthPublisher publisher,
      AuditSink audit,
      GslbMetrics metrics,
      Ticker ticker,
      OpinionExchange exchange) {
    ExecutorTaskScheduler ts = new ExecutorTaskScheduler(ticker);
    return launch(
        new ProbeService(
            store, publisher, audit, metrics, ts, new SplittableRandom(), ts, null, exchange));
  }

  /**
   * Starts probing on {@code ts} (tests drive it with a manual clock) for a node sharing opinions
   * through {@code exchange}.
   */
  public static ProbeService start(
      SnapshotStore store,
      AuditSink audit,
      GslbMetrics metrics,
      TaskScheduler ts,
      RandomGenerator random,
      OpinionExchange exchange) {
    return launch(
        new ProbeService(
            store,
            HealthPublisher.direct(store),
            audit,
            metrics,
            ts,
            random,
            null,
            null,
            exchange));
  }

  /**
   * Starts probing on {@code ts} (tests drive it with a manual clock) with {@code random} for
   * jitter.
   */
  public static ProbeService start(
      SnapshotStore store,
      AuditSink audit,
      GslbMetrics metrics,
      TaskScheduler ts,
      RandomGenerator random) {
    return start(store, audit, metrics, ts, random, OpinionExchange.NONE);
  }

  /** Starts probing with checks from {@code source} (load measurements use simulated checks). */
  static ProbeService start(
      SnapshotStore store,
      AuditSink audit,
      GslbMetrics metrics,
      TaskScheduler ts,
      RandomGenerator random,
      AutoCloseable own,
      CheckSource source) {
    return launch(
        new ProbeService(
            store,
            HealthPublisher.direct(store),
            audit,
            metrics,
            ts,
            random,
            own,
            source,
            OpinionExchange.NONE));
  }

  private static ProbeService launch(ProbeService p) {
    p.ts.execute(p.engine::start);
    p.store.addListener(p::onSnapshot);
    p.exchange.start(p.new ExchangeListener());
    return p;
  }

  /** Hands what the exchange hears to the engine, on the probe thread. */
  private final class ExchangeListener implements OpinionExchange.Listener {
    @Override
    public void replaced(Collection<Opinion> all) {
      List<Opinion> copy = List.copyOf(all);
      run(() -> engine.onRemoteReplaced(copy));
    }

    @Override
    public void changed(Opinion opinion) {
      run(() -> engine.onRemoteChanged(opinion));
    }

    @Override
    public void removed(String endpoint, String vantage) {
      run(() -> engine.onRemoteRemoved(endpoint, vantage));
    }

    @Override
    public void connectionChanged(OpinionExchange.Connection connection) {
      run(() -> engine.onConnection(connection));
    }

    private void run(Runnable r) {
      if (!closed) {
        ts.execute(r);
      }
    }
  }

  private void onSnapshot(Snapshot s) {
    if (!closed) {
      ts.execute(() -> engine.apply(store.current()));
    }
  }

  /**
   * Where remote vantages' reports go (the admin API's POST route calls it after authenticating the
   * agent). Validation happens on the caller's thread, so a bad report fails the request with an
   * {@link IllegalArgumentException} naming the field.
   */
  public ProbeReport.Sink reportSink() {
    return report -> {
      validator().validate(report, ts.ticker().currentTimeMillis());
      long received = ts.ticker().nanoTime();
      ts.execute(() -> engine.onReport(report, received));
    };
  }

  /** The validator for the current configuration, rebuilt only when the configuration changes. */
  private ReportValidator validator() {
    SluiceConfig config = store.current().config();
    ValidatorFor v = validator;
    if (v == null || v.config() != config) {
      v = new ValidatorFor(config, new ReportValidator(config));
      validator = v;
    }
    return v.validator();
  }

  private record ValidatorFor(SluiceConfig config, ReportValidator validator) {}

  /**
   * Per checked endpoint key, the vantages behind its verdict and when its last result came;
   * refreshed every few seconds, never blocks.
   */
  @Override
  public Map<String, ProbeEvidence> evidence() {
    return engine.evidence();
  }

  /** What the probe engine shows operators; never blocks. */
  @Override
  public ProbeStatus status() {
    return engine.status();
  }

  /**
   * Waits (real time, at most {@code probes.startupWait}) until every checked endpoint has a first
   * result, so answers rely on fresh evidence; returns whether that happened in time. Until then
   * the last known (stale) verdicts are served, and endpoints never checked are unknown, which the
   * policy chain treats as usable.
   */
  public boolean awaitInitialRound() throws InterruptedException {
    long wait = store.current().config().probes().startupWait().toMillis();
    return engine.initialRound().await(wait, TimeUnit.MILLISECONDS);
  }

  /** True once every checked endpoint has had its first result. */
  public boolean initialRoundComplete() {
    return engine.initialRound().getCount() == 0;
  }

  /** Checks running right now (for tests that wait for real I/O). */
  int inFlight() {
    return engine.inFlight();
  }

  @Override
  public void close() {
    closed = true;
    if (ownScheduler != null) {
      try {
        ownScheduler.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    if (ownChecks != null) {
      try {
        ownChecks.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
