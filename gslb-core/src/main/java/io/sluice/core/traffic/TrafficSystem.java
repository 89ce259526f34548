package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.core.audit.FileAuditLog;
import io.sluice.core.control.AuditSink;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HealthPublisher;
import io.sluice.core.spi.Leadership;
import io.sluice.core.spi.ShareEstimator;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.DiskWrites;
import io.sluice.core.store.FileDurableLog;
import io.sluice.core.store.SharedStateLog;
import io.sluice.core.store.StateArchive;
import io.sluice.core.store.StoreUnavailableException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Opens the durable traffic state under a state directory ({@code traffic/} journal and snapshot,
 * {@code audit/} log, {@code switches.jsonl}), restores it into the snapshot store, and runs the
 * controller: a tick every {@code tickInterval} and one as soon as the health view changes. A node
 * of a cluster shares its operator state through a {@link SharedStateLog} (the state directory then
 * holds this node's copy of it).
 */
public final class TrafficSystem implements Closeable {
  // How often a cluster node checks the shared store beyond the records it is told about.
  private static final Duration SYNC_INTERVAL = Duration.ofSeconds(1);
  // The controller's tick: ramp timers, gates and TTL restores are judged at least this often.
  private static final Duration TICK_INTERVAL = Duration.ofSeconds(1);
  private final FileDurableLog log;
  private final FileAuditLog audit;
  private final SwitchLog switches;
  private final TrafficController controller;
  private final ScheduledExecutorService scheduler;
  // Follows the cluster's shared state; null on a single node.
  private final ClusterSync sync;

  private TrafficSystem(
      FileDurableLog log,
      FileAuditLog audit,
      SwitchLog switches,
      TrafficController controller,
      ClusterSync sync) {
    this.log = log;
    this.audit = audit;
    this.switches = switches;
    this.controller = controller;
    this.sync = sync;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-traffic");
              t.setDaemon(true);
              return t;
            });
  }

  /** The JSON mapper used for the persisted state and switch records. */
  static ObjectMapper mapper() {
    return JsonMapper.builder().build();
  }

  /**
   * Opens everything without starting the scheduler: tests and tools drive {@link
   * TrafficController#tick()} themselves.
   */
  public static TrafficSystem openManual(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external)
      throws IOException {
    return openManual(store, stateDir, ticker, metrics, external, ShareEstimator.NONE);
  }

  /**
   * Like {@link #openManual(SnapshotStore, Path, Ticker, GslbMetrics, ExternalMetric)}, with status
   * shares taken from {@code shares} (the policy chain).
   */
  public static TrafficSystem openManual(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      ShareEstimator shares)
      throws IOException {
    return openManual(store, stateDir, ticker, metrics, external, shares, DiskWrites.DIRECT);
  }

  /**
   * Like {@link #openManual(SnapshotStore, Path, Ticker, GslbMetrics, ExternalMetric,
   * ShareEstimator)}, writing every file of the state directory through {@code writes} (a test
   * makes them fail as a full disk does).
   */
  public static TrafficSystem openManual(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      ShareEstimator shares,
      DiskWrites writes)
      throws IOException {
    return openManual(
        store, stateDir, ticker, metrics, external, shares, writes, null, Leadership.ALWAYS);
  }

  /**
   * Like {@link #openManual(SnapshotStore, Path, Ticker, GslbMetrics, ExternalMetric,
   * ShareEstimator, DiskWrites)}, running the controller's own steps only while {@code leadership}
   * says this node leads.
   */
  public static TrafficSystem openManual(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      ShareEstimator shares,
      DiskWrites writes,
      Leadership leadership)
      throws IOException {
    return openManual(store, stateDir, ticker, metrics, external, shares, writes, null, leadership);
  }

  /**
   * Opens a node of a cluster without starting the controller's ticks: the local journal's state is
   * published first (a node started while the shared store is unreachable serves it), then the node
   * catches up with {@code shared} and follows it on a thread of its own, checking the store every
   * second.
   */
  public static TrafficSystem openManualClustered(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      SharedStateLog shared)
      throws IOException {
    return openManualClustered(
        store, stateDir, ticker, metrics, external, shared, Leadership.ALWAYS);
  }

  /**
   * Like {@link #openManualClustered(SnapshotStore, Path, Ticker, GslbMetrics, ExternalMetric,
   * SharedStateLog)}, running the controller's own steps only while {@code leadership} says this
   * node leads (a follower takes the leader's changes from the shared state).
   */
  public static TrafficSystem openManualClustered(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      SharedStateLog shared,
      Leadership leadership)
      throws IOException {
    return openManual(
        store,
        stateDir,
        ticker,
        metrics,
        external,
        ShareEstimator.NONE,
        DiskWrites.DIRECT,
        shared,
        leadership);
  }

  /**
   * Opens a node of a cluster whose operator state is shared through {@code shared} (see {@link
   * #openManualClustered}) and whose controller runs its own steps only while {@code leadership}
   * says this node leads, and starts the controller as {@link #open(SnapshotStore, Path, Ticker,
   * GslbMetrics, ShareEstimator)} does.
   */
  public static TrafficSystem openClustered(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ShareEstimator shares,
      SharedStateLog shared,
      Leadership leadership)
      throws IOException {
    return openStarted(store, stateDir, ticker, metrics, shares, shared, leadership);
  }

  /** Opens a node (clustered when {@code shared} is not null) and starts its controller's ticks. */
  private static TrafficSystem openStarted(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ShareEstimator shares,
      SharedStateLog shared,
      Leadership leadership)
      throws IOException {
    TrafficSystem sys =
        openManual(
            store,
            stateDir,
            ticker,
            metrics,
            new PrometheusMetric(),
            shares,
            DiskWrites.DIRECT,
            shared,
            leadership);
    sys.start(store, TICK_INTERVAL);
    return sys;
  }

  private static TrafficSystem openManual(
      SnapshotStore store,
      Path stateDir,
      Ticker ticker,
      GslbMetrics metrics,
      ExternalMetric external,
      ShareEstimator shares,
      DiskWrites writes,
      SharedStateLog shared,
      Leadership leadership)
      throws IOException {
    ObjectMapper json = mapper();
    FileDurableLog log = FileDurableLog.open(stateDir.resolve("traffic"), 1000, writes);
    FileAuditLog audit = null;
    SwitchLog switches = null;
    try {
      audit = FileAuditLog.open(stateDir.resolve("audit"), ticker, 16L << 20, 10, writes);
      switches = new SwitchLog(stateDir.resolve("switches.jsonl"), json, 1000, writes);
      // Versions resume above every version an earlier run may have handed out.
      store.resumeVersions(log.versionsReserved(), log::reserveVersions);
      TrafficController c =
          new TrafficController(
              store,
              log,
              audit,
              switches,
              ticker,
              metrics,
              external,
              shares,
              json,
              shared,
              leadership);
      ClusterSync sync = null;
      if (shared != null) {
        sync = new ClusterSync(shared, c.writer());
        sync.start(SYNC_INTERVAL);
      }
      return new TrafficSystem(log, audit, switches, c, sync);
    } catch (IOException | RuntimeException e) {
      log.close();
      if (audit != null) {
        audit.close();
      }
      if (switches != null) {
        switches.close();
      }
      throw e;
    }
  }

  /**
   * Opens the traffic state in {@code stateDir}, restores it into {@code store} and starts the
   * controller, ticking every second and on every health change.
   */
  public static TrafficSystem open(
      SnapshotStore store, Path stateDir, Ticker ticker, GslbMetrics metrics) throws IOException {
    return open(store, stateDir, ticker, metrics, ShareEstimator.NONE);
  }

  /**
   * Like {@link #open(SnapshotStore, Path, Ticker, GslbMetrics)}, with status shares from {@code
   * shares}.
   */
  public static TrafficSystem open(
      SnapshotStore store, Path stateDir, Ticker ticker, GslbMetrics metrics, ShareEstimator shares)
      throws IOException {
    return openStarted(store, stateDir, ticker, metrics, shares, null, Leadership.ALWAYS);
  }

  /** Starts ticking every {@code tickInterval} and whenever the health view changes. */
  public void start(SnapshotStore store, Duration tickInterval) {
    AtomicBoolean queued = new AtomicBoolean();
    AtomicLong seenHealth = new AtomicLong(store.current().health().version());
    Runnable tick =
        () -> {
          queued.set(false);
          try {
            controller.retryStore();
            controller.tick();
          } catch (StoreUnavailableException e) {
            // Already logged by the state writer; the step is retried on the next tick.
          } catch (RuntimeException e) {
            // A failed step is retried on the next tick; the scheduler must keep running.
            System.getLogger(TrafficSystem.class.getName())
                .log(System.Logger.Level.ERROR, "traffic controller step failed", e);
          }
        };
    store.addListener(
        s -> {
          long hv = s.health().version();
          if (seenHealth.getAndSet(hv) != hv
              && !scheduler.isShutdown()
              && queued.compareAndSet(false, true)) {
            try {
              scheduler.execute(tick);
            } catch (RejectedExecutionException e) {
              // Closed meanwhile: the listener stays registered but must never fail a writer.
              queued.set(false);
            }
          }
        });
    scheduler.scheduleWithFixedDelay(
        tick, tickInterval.toMillis(), tickInterval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The operator interface (admin API, CLI). */
  public ControlPlane controlPlane() {
    return controller;
  }

  /** The controller, for driving ticks directly. */
  public TrafficController controller() {
    return controller;
  }

  /**
   * Where the probe module publishes verdicts, so that the controller's reaction to them (a
   * failover, the short TTL) is published in the same snapshot.
   */
  public HealthPublisher healthPublisher() {
    return controller.healthPublisher();
  }

  /** The durable audit log itself, for the webhook outbox that hears it. */
  public FileAuditLog auditLog() {
    return audit;
  }

  /** The durable audit log, to be shared with other components (the probe module). */
  public AuditSink auditSink() {
    return audit;
  }

  /**
   * Runs {@code step} while no change can be written: holding the state writer's lock (journal
   * records and their switch records) and the audit log's (every audit line, also those written
   * outside a change), so a copy of the files taken in {@code step} is one consistent state.
   */
  public void quiesced(StateArchive.IoStep step) throws IOException {
    IOException[] failed = new IOException[1];
    controller
        .writer()
        .locked(
            () -> {
              synchronized (audit) {
                try {
                  step.run();
                } catch (IOException e) {
                  failed[0] = e;
                }
              }
            });
    if (failed[0] != null) {
      throw failed[0];
    }
  }

  @Override
  public void close() throws IOException {
    // No interrupt: a step in progress finishes its write instead of being cut off.
    scheduler.shutdown();
    if (sync != null) {
      sync.close();
    }
    try {
      if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // A verdict batch the probe thread is publishing with its reaction (see healthPublisher) holds
    // the writer lock until its journal record and audit events are written: let it finish.
    controller.awaitWrites();
    switches.close();
    audit.close();
    log.close();
  }
}
