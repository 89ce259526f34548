package io.sluice.probe;

import java.util.Arrays;

/**
 * How late checks start compared with their due time, over the last {@value #SIZE} starts. Not
 * thread-safe: written on the probe thread; {@link #summary()} is read there too.
 */
final class ScheduleLag {
  static final int SIZE = 4096;

  /** Lag percentiles in milliseconds. */
  record Summary(long samples, double p50Millis, double p99Millis, double maxMillis) {}

  private final long[] lags = new long[SIZE];
  private int next;
  private long total;
  private long maxNanos;

  void record(long lagNanos) {
    lags[next] = lagNanos;
    next = (next + 1) % SIZE;
    total++;
    maxNanos = Math.max(maxNanos, lagNanos);
  }

  Summary summary() {
    int n = (int) Math.min(total, SIZE);
    if (n == 0) {
      return new Summary(0, 0, 0, 0);
    }
    long[] copy = Arrays.copyOf(lags, n);
    Arrays.sort(copy);
    return new Summary(
        total, copy[(n - 1) / 2] / 1e6, copy[(int) Math.ceil(0.99 * n) - 1] / 1e6, maxNanos / 1e6);
  }
}
