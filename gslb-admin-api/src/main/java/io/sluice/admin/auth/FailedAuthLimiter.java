package io.sluice.admin.auth;

import io.sluice.core.spi.Ticker;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Limits failed authentication attempts per source address: after {@code maxPerMinute} failures in
 * a one-minute window the address is refused (HTTP 429) until the window ends. The table is
 * bounded; when it is full, expired windows are dropped first and then everything, so a flood of
 * addresses cannot exhaust memory.
 */
public final class FailedAuthLimiter {
  private static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);
  private static final int MAX_TRACKED = 10_000;

  private final int maxPerMinute;
  private final Ticker ticker;
  private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

  private record Window(long startNanos, int failures) {}

  public FailedAuthLimiter(int maxPerMinute, Ticker ticker) {
    this.maxPerMinute = maxPerMinute;
    this.ticker = ticker;
  }

  /** Seconds until {@code source} may try again, or 0 when it is not blocked. */
  public long retryAfterSeconds(String source) {
    Window w = windows.get(source);
    if (w == null || w.failures < maxPerMinute) {
      return 0;
    }
    long left = w.startNanos + WINDOW_NANOS - ticker.nanoTime();
    return left <= 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toSeconds(left + 999_999_999L));
  }

  /** Counts one failed attempt from {@code source}. */
  public void recordFailure(String source) {
    long now = ticker.nanoTime();
    if (windows.size() >= MAX_TRACKED && !windows.containsKey(source)) {
      windows.values().removeIf(w -> now - w.startNanos >= WINDOW_NANOS);
      if (windows.size() >= MAX_TRACKED) {
        windows.clear();
      }
    }
    windows.compute(
        source,
        (k, w) ->
            w == null || now - w.startNanos >= WINDOW_NANOS
                ? new Window(now, 1)
                : new Window(w.startNanos, w.failures + 1));
  }
}
