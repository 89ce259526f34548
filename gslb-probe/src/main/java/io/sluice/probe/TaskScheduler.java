package io.sluice.probe;

import io.sluice.core.spi.Ticker;

/**
 * The probe engine's single thread and its clock. Every piece of engine state is touched only from
 * tasks run here, so the engine needs no locks; tests substitute a scheduler driven by a manual
 * clock.
 */
public interface TaskScheduler {

  /** The clock that due times are measured against. */
  Ticker ticker();

  /** Runs {@code task} on the probe thread after {@code delayNanos}. */
  Cancellable schedule(Runnable task, long delayNanos);

  /** Runs {@code task} on the probe thread as soon as possible; callable from any thread. */
  void execute(Runnable task);

  /** A scheduled task that can be called off. */
  interface Cancellable {
    void cancel();
  }
}
