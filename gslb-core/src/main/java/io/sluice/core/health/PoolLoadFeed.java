package io.sluice.core.health;

import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.PoolLoadConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The load feed of the {@code capacity} step: pool loads pushed through the admin API or pulled
 * from each pool's Prometheus query, published into the snapshot's health view ({@link
 * HealthView#poolLoads()}) with their age checked against {@code pools.<name>.load.staleAfter}. It
 * runs on its own thread (pulls block on HTTP), never on the query path; the query path only reads
 * the published loads. Loads are telemetry: they are not journaled, and a restart starts without.
 */
public final class PoolLoadFeed implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(PoolLoadFeed.class.getName());

  /** Reads the first sample of a Prometheus instant query. */
  @FunctionalInterface
  public interface Query {
    /** The value of {@code query} at {@code url}, or an exception saying why not. */
    double read(String url, String query, Duration timeout) throws Exception;
  }

  private record Reading(double value, long atMillis, PoolLoad.Source source) {}

  private final SnapshotStore store;
  private final AuditSink audit;
  private final Query query;
  private final Ticker ticker;
  private final GslbMetrics metrics;
  private final Map<String, Reading> readings = new ConcurrentHashMap<>();
  // Touched by the feed's own thread only (tick).
  private final Map<String, Long> lastPullNanos = new HashMap<>();
  private final Map<String, String> lastError = new HashMap<>();
  private ScheduledExecutorService scheduler;

  private PoolLoadFeed(
      SnapshotStore store, AuditSink audit, Query query, Ticker ticker, GslbMetrics metrics) {
    this.store = store;
    this.audit = audit;
    this.query = query;
    this.ticker = ticker;
    this.metrics = metrics;
  }

  /**
   * A feed over {@code store} without metrics; nothing runs until {@link #start} or {@link #tick}.
   */
  public static PoolLoadFeed create(
      SnapshotStore store, AuditSink audit, Query query, Ticker ticker) {
    return create(store, audit, query, ticker, GslbMetrics.NOOP);
  }

  /** Like {@link #create(SnapshotStore, AuditSink, Query, Ticker)}, reporting loads and ages. */
  public static PoolLoadFeed create(
      SnapshotStore store, AuditSink audit, Query query, Ticker ticker, GslbMetrics metrics) {
    return new PoolLoadFeed(store, audit, query, ticker, metrics);
  }

  /** Ticks every {@code period} on a daemon thread: pulls what is due, re-checks staleness. */
  public synchronized void start(Duration period) {
    if (scheduler != null) {
      return;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-pool-load");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            tick();
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "pool load feed step failed", e);
          }
        },
        0,
        period.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** The rule of a pushed load: a finite number >= 0, in the unit of the pool's capacity. */
  public static void loadRule(CommandProblems p, Double load) {
    if (load == null) {
      p.add("load", "is required");
    } else if (!Double.isFinite(load) || load < 0) {
      p.add("load", "must be a finite number >= 0, was " + load);
    }
  }

  /**
   * Records a load pushed by {@code actor} for {@code pool}, publishes it and audits it (action
   * {@code pool-load}).
   *
   * @return the published reading
   * @throws IllegalArgumentException naming the field when the pool is unknown or the load invalid
   */
  public PoolLoad push(Actor actor, String pool, double load, String reason) {
    Snapshot before = store.current();
    if (pool == null || !before.config().pools().containsKey(pool)) {
      throw new IllegalArgumentException(
          "pool: unknown pool '" + pool + "' (pools: " + before.config().pools().keySet() + ")");
    }
    CommandProblems problems = new CommandProblems();
    loadRule(problems, load);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(problems.list().get(0).toString());
    }
    readings.put(pool, new Reading(load, ticker.currentTimeMillis(), PoolLoad.Source.PUSH));
    Snapshot after = publish();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("pool", pool);
    details.put("load", load);
    details.put("source", "push");
    audit.append(actor, "pool-load", null, reason, before.version(), after.version(), details);
    PoolLoad published = after.health().poolLoads().get(pool);
    return published != null
        ? published
        : new PoolLoad(load, ticker.currentTimeMillis(), PoolLoad.Source.PUSH, false);
  }

  /** One step: pulls every Prometheus query that is due, then publishes loads and staleness. */
  public void tick() {
    long now = ticker.nanoTime();
    for (Map.Entry<String, PoolConfig> e : store.current().config().pools().entrySet()) {
      PoolLoadConfig lc = e.getValue().load();
      String pool = e.getKey();
      Long last = lastPullNanos.get(pool);
      if (!lc.pulled() || (last != null && now - last < lc.interval().toNanos())) {
        continue;
      }
      lastPullNanos.put(pool, now);
      try {
        double v = query.read(lc.url(), lc.query(), lc.timeout());
        if (!Double.isFinite(v) || v < 0) {
          throw new IllegalStateException("the sample is not a load >= 0: " + v);
        }
        readings.put(pool, new Reading(v, ticker.currentTimeMillis(), PoolLoad.Source.PROMETHEUS));
        if (lastError.remove(pool) != null) {
          LOG.log(System.Logger.Level.INFO, "pool {0}: load query works again", pool);
        }
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception ex) {
        String msg = String.valueOf(ex.getMessage());
        // One line per new problem, not one per pull: the staleness shows in status and explain.
        if (!msg.equals(lastError.put(pool, msg))) {
          LOG.log(
              System.Logger.Level.WARNING,
              "pool {0}: load query {1} at {2} failed ({3}); the last load turns stale after {4}",
              pool,
              lc.query(),
              lc.url(),
              msg,
              lc.staleAfter());
        }
      }
    }
    Snapshot s = publish();
    long nowMillis = ticker.currentTimeMillis();
    s.health()
        .poolLoads()
        .forEach(
            (pool, l) ->
                metrics.poolLoad(pool, l.value(), (nowMillis - l.reportedMillis()) / 1000.0));
  }

  /** Publishes the loads of the configured pools, each marked stale when older than allowed. */
  private Snapshot publish() {
    return store.update(
        s -> {
          long now = ticker.currentTimeMillis();
          Map<String, PoolLoad> loads = new HashMap<>();
          for (Map.Entry<String, Reading> e : readings.entrySet()) {
            PoolConfig pc = s.config().pools().get(e.getKey());
            if (pc == null) {
              continue;
            }
            Reading r = e.getValue();
            boolean stale = now - r.atMillis() > pc.load().staleAfter().toMillis();
            loads.put(e.getKey(), new PoolLoad(r.value(), r.atMillis(), r.source(), stale));
          }
          return HealthPublisher.applied(s, h -> h.withPoolLoadReadings(loads));
        });
  }

  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }
}
