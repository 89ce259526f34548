package io.sluice.core.testing;

import io.sluice.core.spi.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when a test advances it. */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final long epochMillisAtStart;

  public ManualTicker() {
    this(1_800_000_000_000L);
  }

  public ManualTicker(long epochMillisAtStart) {
    this.epochMillisAtStart = epochMillisAtStart;
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public long currentTimeMillis() {
    return epochMillisAtStart + (nanos.get() - 1_000_000_000L) / 1_000_000L;
  }

  /** Moves time forward. */
  public void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }
}
