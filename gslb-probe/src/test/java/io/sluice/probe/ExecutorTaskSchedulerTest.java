package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.core.spi.Ticker;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The probe thread keeps running the checks after one of them fails, an Error included, and the
 * failure is logged rather than kept in a future nobody reads; closing waits for the task in
 * flight, except on the probe thread itself.
 */
class ExecutorTaskSchedulerTest {
  @Test
  void checksRunOnAfterATaskFailsWithAnErrorAndTheFailureIsLogged() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(ExecutorTaskScheduler.class);
    ListAppender<ILoggingEvent> logs = capture(logger);
    try (ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM)) {
      ts.execute(
          () -> {
            throw new OutOfMemoryError("a reload filled the heap");
          });
      ts.execute(
          () -> {
            throw new IllegalStateException("a probe bug");
          });
      CountDownLatch later = new CountDownLatch(2);
      ts.execute(later::countDown);
      ts.schedule(later::countDown, TimeUnit.MILLISECONDS.toNanos(20));
      assertTrue(later.await(5, TimeUnit.SECONDS), "later checks still run");
    } finally {
      logger.detachAppender(logs);
    }
    assertTrue(logged(logs, "a reload filled the heap"), "the Error is logged");
    assertTrue(logged(logs, "a probe bug"), "the exception is logged");
  }

  @Test
  void closeReturnsOnlyOnceTheTaskInFlightHasEnded() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean ended =
        new java.util.concurrent.atomic.AtomicBoolean();
    ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM);
    ts.execute(
        () -> {
          running.countDown();
          // Work that does not look at the interrupt, like a verdict file being written.
          long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
          ended.set(true);
        });
    assertTrue(running.await(5, TimeUnit.SECONDS), "the task started");
    ts.close();
    assertTrue(ended.get(), "close() returned while the task was still running");
  }

  @Test
  void aTaskSchedulingItsNextRunAsTheSchedulerClosesEndsQuietly() throws Exception {
    Logger logger = (Logger) LoggerFactory.getLogger(ExecutorTaskScheduler.class);
    ListAppender<ILoggingEvent> logs = capture(logger);
    ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM);
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch scheduled = new CountDownLatch(1);
    Thread closer = new Thread(ts::close);
    try {
      ts.execute(
          () -> {
            running.countDown();
            // As a health engine's start does when the node closes under it: it schedules the
            // first sweep after close() has begun.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!closer.isAlive() && System.nanoTime() < until) {
              Thread.onSpinWait();
            }
            ts.schedule(() -> {}, TimeUnit.MILLISECONDS.toNanos(10)).cancel();
            scheduled.countDown();
          });
      assertTrue(running.await(5, TimeUnit.SECONDS), "the task started");
      closer.start();
      closer.join(10_000);
      assertTrue(scheduled.await(5, TimeUnit.SECONDS), "schedule() returned to the task");
    } finally {
      logger.detachAppender(logs);
    }
    assertTrue(
        logs.list.stream().noneMatch(e -> e.getLevel() == ch.qos.logback.classic.Level.ERROR),
        "nothing logged as an error: " + logs.list);
  }

  @Test
  void closeOnTheProbeThreadItselfDoesNotWaitForItself() throws Exception {
    ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM);
    CountDownLatch closed = new CountDownLatch(1);
    long[] took = new long[1];
    ts.execute(
        () -> {
          long start = System.nanoTime();
          ts.close();
          took[0] = System.nanoTime() - start;
          closed.countDown();
        });
    assertTrue(closed.await(10, TimeUnit.SECONDS), "close() on the probe thread returned");
    assertTrue(
        took[0] < TimeUnit.MILLISECONDS.toNanos(ExecutorTaskScheduler.CLOSE_WAIT_MILLIS),
        "close() on the probe thread waited for itself: " + took[0] + " ns");
  }

  /** The events {@code logger} logs from now on, until the appender is detached. */
  private static ListAppender<ILoggingEvent> capture(Logger logger) {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    return logs;
  }

  /** Whether an event carrying a throwable with {@code message} was logged. */
  private static boolean logged(ListAppender<ILoggingEvent> logs, String message) {
    return logs.list.stream()
        .anyMatch(
            e ->
                e.getThrowableProxy() != null
                    && e.getThrowableProxy().getMessage().equals(message));
  }
}
