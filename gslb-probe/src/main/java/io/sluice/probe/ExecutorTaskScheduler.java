package io.sluice.probe;

import io.sluice.core.spi.Ticker;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The production {@link TaskScheduler}: one daemon thread named {@code sluice-probe}. */
public final class ExecutorTaskScheduler implements TaskScheduler, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorTaskScheduler.class);

  /** How long {@link #close} waits for the task in flight. */
  static final long CLOSE_WAIT_MILLIS = 5_000;

  private final Ticker ticker;
  private final ScheduledThreadPoolExecutor executor;

  /** The probe thread (the latest, should one have ended), where close() must not wait. */
  private volatile Thread thread;

  public ExecutorTaskScheduler(Ticker ticker) {
    this.ticker = ticker;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "sluice-probe");
              thread = t;
              t.setDaemon(true);
              // An Error outside any task (the worker's own queue wait running out of heap while a
              // reload fills it) ends the thread; the executor starts another for the queued
              // checks, so say so in the log instead of a bare stack trace on stderr.
              t.setUncaughtExceptionHandler(
                  (dead, e) ->
                      LOG.error(
                          "the probe thread ended ({}); a new one runs the queued checks", e));
              return t;
            });
    executor.setRemoveOnCancelPolicy(true);
  }

  @Override
  public Ticker ticker() {
    return ticker;
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> f;
    try {
      f = executor.schedule(guard(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      closed(e);
      return () -> {};
    }
    return () -> f.cancel(false);
  }

  @Override
  public void execute(Runnable task) {
    try {
      executor.execute(guard(task));
    } catch (RejectedExecutionException e) {
      closed(e);
    }
  }

  /**
   * A task handed over after {@link #close()} (a task in flight scheduling its next run as a node
   * whose start failed, or that stops, closes it) is dropped: there is no next run, which is no
   * failure. A rejection while open is rethrown.
   */
  private void closed(RejectedExecutionException e) {
    if (!executor.isShutdown()) {
      throw e;
    }
  }

  /**
   * One failing task must not stop the probe thread's later tasks, and must be heard of: the
   * executor would keep a task's Error (out of heap during an oversized reload) in a future nobody
   * reads.
   */
  private static Runnable guard(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        LOG.error("probe task failed", e);
      }
    };
  }

  /**
   * Stops the probe thread and waits, at most {@link #CLOSE_WAIT_MILLIS}, for the task it is
   * running: a check in flight saves verdicts to the state directory, which the caller may hand to
   * another process (a zero-downtime restart) or delete once this returns. Called on the probe
   * thread itself, it only stops it.
   */
  @Override
  public void close() {
    executor.shutdownNow();
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      if (!executor.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        LOG.warn("the probe thread did not stop within {} ms", CLOSE_WAIT_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
