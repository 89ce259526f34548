package io.sluice.core.spi;

/** A source of time, injected so that timing logic is tested without sleeping. */
public interface Ticker {

  /** Monotonic nanoseconds, for intervals. */
  long nanoTime();

  /** Wall-clock milliseconds since the epoch, for records people read. */
  long currentTimeMillis();

  /** The system clock. */
  Ticker SYSTEM =
      new Ticker() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
          return System.currentTimeMillis();
        }
      };
}
