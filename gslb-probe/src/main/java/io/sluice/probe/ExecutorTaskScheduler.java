package io.sluice.probe;

import io.sluice.core.spi.Ticker;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The production {@link TaskScheduler}: one daemon thread named {@code sluice-probe}. */
public final class ExecutorTaskScheduler implements TaskScheduler, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutorTaskScheduler.class);

  private final Ticker ticker;
  private final ScheduledThreadPoolExecutor executor;

  public ExecutorTaskScheduler(Ticker ticker) {
    this.ticker = ticker;
    this.executor =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "sluice-probe");
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
    ScheduledFuture<?> f =
        executor.schedule(guard(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public void execute(Runnable task) {
    if (!executor.isShutdown()) {
      executor.execute(guard(task));
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

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
