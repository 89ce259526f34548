package io.sluice.dns.dnssec.keys;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls {@link KeyDirectory#tick()} every second on its own thread, so timing instants are told.
 */
public final class KeyTicks implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KeyTicks.class);

  private final ScheduledExecutorService timer;

  private KeyTicks(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Starts ticking {@code keys}. */
  public static KeyTicks start(KeyDirectory keys) {
    return start(keys::tick, 1000);
  }

  /**
   * Runs {@code tick} every {@code periodMillis}. A tick that throws is logged and the next one
   * runs: a scheduled executor would otherwise keep the failure in a future nobody reads and never
   * run the task again, and key rollovers would stop without a word.
   */
  static KeyTicks start(Runnable tick, long periodMillis) {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-dnssec-keys");
              t.setDaemon(true);
              // An Error outside the tick (the worker's own queue running out of heap while a
              // reload fills it) ends the thread; the executor starts another for the next tick.
              t.setUncaughtExceptionHandler(
                  (dead, e) ->
                      LOG.error("the DNSSEC key timer thread ended ({}); a new one ticks on", e));
              return t;
            });
    timer.scheduleWithFixedDelay(
        () -> {
          try {
            tick.run();
          } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            LOG.error("DNSSEC key timing check failed, trying again at the next tick: {}", e);
          }
        },
        periodMillis,
        periodMillis,
        TimeUnit.MILLISECONDS);
    return new KeyTicks(timer);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
