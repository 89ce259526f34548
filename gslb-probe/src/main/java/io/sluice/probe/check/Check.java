package io.sluice.probe.check;

import java.util.concurrent.CompletableFuture;

/**
 * One runnable health check of one target. {@link #run()} never blocks the caller and its future
 * always completes normally, with a failing {@link CheckResult} for every kind of error, within the
 * check's timeout.
 */
public interface Check {

  /** Starts the check. */
  CompletableFuture<CheckResult> run();

  /** What is checked, for status and evidence ({@code tcp 10.0.0.1:443}). */
  String describe();
}
