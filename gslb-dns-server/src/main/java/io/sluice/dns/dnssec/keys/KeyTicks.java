package io.sluice.dns.dnssec.keys;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Calls {@link KeyDirectory#tick()} every second on its own thread, so timing instants are told.
 */
public final class KeyTicks implements AutoCloseable {
  private final ScheduledExecutorService timer;

  private KeyTicks(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Starts ticking {@code keys}. */
  public static KeyTicks start(KeyDirectory keys) {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-dnssec-keys");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(keys::tick, 1, 1, TimeUnit.SECONDS);
    return new KeyTicks(timer);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
