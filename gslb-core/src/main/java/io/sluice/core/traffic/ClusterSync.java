package io.sluice.core.traffic;

import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.store.SharedStateLog;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a node's traffic state in step with the cluster's shared state: adopts every record another
 * node commits as the store reports it, and checks the store once per interval, so that a lost
 * notification, a cut and the return from it (catch up, then the safety actions of the cut) are
 * noticed within that interval. Everything runs on one thread, in order.
 */
final class ClusterSync implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClusterSync.class.getName());

  private final SharedStateLog shared;
  private final StateWriter writer;
  private final ScheduledExecutorService thread;
  private AutoCloseable watch;
  private String lastProblem;

  ClusterSync(SharedStateLog shared, StateWriter writer) {
    this.shared = shared;
    this.writer = writer;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-cluster-state");
              t.setDaemon(true);
              return t;
            });
  }

  /** Catches up now, then follows the store and checks it every {@code interval}. */
  void start(Duration interval) {
    thread.execute(this::sync);
    thread.scheduleWithFixedDelay(
        this::check, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Catches up with the store and (once) starts following it from the applied revision. */
  private void sync() {
    try {
      writer.syncWithCluster();
      if (watch == null) {
        watch = shared.watch(writer.appliedRevision(), new Heard());
      }
      if (lastProblem != null) {
        LOG.log(
            System.Logger.Level.INFO,
            "the cluster store is reachable again; caught up at revision {0}",
            writer.appliedRevision());
        lastProblem = null;
      }
    } catch (ClusterUnreachableException e) {
      if (!e.getMessage().equals(lastProblem)) {
        LOG.log(System.Logger.Level.WARNING, "{0}", e.getMessage());
      }
      lastProblem = e.getMessage();
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.ERROR, "catching up with the shared state of the cluster failed", e);
    }
  }

  /**
   * Once per interval: a cut, the return from it, a record the notifications missed, or safety
   * actions still owed to the cluster lead to a catch-up.
   */
  private void check() {
    boolean wasConnected = shared.connectivity().connected();
    long newest;
    try {
      newest = shared.latestRevision();
    } catch (ClusterUnreachableException e) {
      if (!e.getMessage().equals(lastProblem)) {
        LOG.log(System.Logger.Level.WARNING, "{0}", e.getMessage());
      }
      lastProblem = e.getMessage();
      return;
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "checking the shared state of the cluster failed", e);
      return;
    }
    if (!wasConnected
        || lastProblem != null
        || watch == null
        || newest != writer.appliedRevision()
        || !writer.localActions().isEmpty()) {
      sync();
    }
  }

  /** Hands what the store reports to the sync thread, in order. */
  private final class Heard implements SharedStateLog.Listener {
    @Override
    public void entry(SharedStateLog.Entry e) {
      submit(
          () -> {
            try {
              writer.adoptHeard(e);
            } catch (ClusterUnreachableException x) {
              lastProblem = x.getMessage();
            }
          });
    }

    @Override
    public void compacted(long compactedRevision) {
      submit(ClusterSync.this::sync);
    }

    private void submit(Runnable r) {
      try {
        thread.execute(r);
      } catch (RejectedExecutionException x) {
        // Closing: the store's next start catches up from the journal's revision.
      }
    }
  }

  @Override
  public void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (watch != null) {
      try {
        watch.close();
      } catch (Exception e) {
        LOG.log(System.Logger.Level.DEBUG, "closing the shared state watch: {0}", e);
      }
    }
  }
}
