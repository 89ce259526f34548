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

  /** One failing task must not stop the probe thread's later tasks. */
  private static Runnable guard(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.error("probe task failed", e);
      }
    };
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
