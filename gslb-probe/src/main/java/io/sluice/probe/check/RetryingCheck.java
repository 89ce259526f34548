package io.sluice.probe.check;

import io.sluice.core.spi.Ticker;
import java.util.concurrent.CompletableFuture;

/**
 * Makes one check run out of up to {@code attempts} tries, so a single lost packet or request never
 * counts as a failed run. Only quick failures are retried (the run so far took less than half the
 * timeout), so a run that times out is never stretched much beyond its timeout: at most 1.5 times.
 * The result of the last try is reported, with the run's total time.
 */
final class RetryingCheck implements Check {
  private final Check inner;
  private final int attempts;
  private final long budgetNanos;
  private final Ticker clock;

  RetryingCheck(Check inner, int attempts, long timeoutNanos, Ticker clock) {
    this.inner = inner;
    this.clock = clock;
    this.attempts = attempts;
    this.budgetNanos = timeoutNanos / 2;
  }

  @Override
  public CompletableFuture<CheckResult> run() {
    CompletableFuture<CheckResult> out = new CompletableFuture<>();
    attempt(1, clock.nanoTime(), out);
    return out;
  }

  private void attempt(int n, long start, CompletableFuture<CheckResult> out) {
    inner
        .run()
        .whenComplete(
            (r, e) -> {
              long elapsed = clock.nanoTime() - start;
              if (r != null && (r.ok() || n >= attempts || elapsed >= budgetNanos)) {
                out.complete(
                    n == 1
                        ? r
                        : new CheckResult(
                            r.ok(),
                            r.ok() ? r.rttNanos() : elapsed,
                            r.reason(),
                            r.ok() ? null : r.error() + " (" + n + " tries)"));
              } else if (r == null) {
                out.complete(CheckResult.fail(elapsed, "io", "check failed: " + e));
              } else {
                attempt(n + 1, start, out);
              }
            });
  }

  @Override
  public String describe() {
    return inner.describe();
  }
}
