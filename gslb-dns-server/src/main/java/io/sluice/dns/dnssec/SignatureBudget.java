package io.sluice.dns.dnssec;

import io.sluice.core.spi.Ticker;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rate at which the query path may sign online, as a lock-free token bucket (GCRA): {@code
 * perSecond} signatures a second with a burst of one second's worth. A query that finds it empty
 * gets the documented fallback instead of a signature, so a flood of random names costs a bounded
 * amount of CPU however fast it arrives.
 */
final class SignatureBudget {
  private final Ticker ticker;
  private final long interval;
  private final long burst;

  /** The theoretical arrival time of the next signature, in ticker nanoseconds. */
  private final AtomicLong next;

  SignatureBudget(int perSecond, Ticker ticker) {
    this.ticker = ticker;
    this.interval = Math.max(1, 1_000_000_000L / perSecond);
    this.burst = 1_000_000_000L;
    this.next = new AtomicLong(ticker.nanoTime() - burst);
  }

  /** Takes one signature from the budget; false when it is spent. */
  boolean take() {
    long now = ticker.nanoTime();
    while (true) {
      long tat = next.get();
      long start = Math.max(tat, now - burst);
      long after = start + interval;
      if (after - now > 0 && start - now > 0) {
        return false;
      }
      if (next.compareAndSet(tat, after)) {
        return true;
      }
    }
  }
}
