package io.sluice.probe.canary;

import java.util.HashMap;
import java.util.Map;

/**
 * Watches each vantage's probe path through its canaries (always-up targets). A vantage's path is
 * impaired when every canary with a fresh result failed its latest check; with no fresh canary
 * result the path is taken as healthy. Not thread-safe: used only on the probe engine's thread.
 */
public final class CanaryWatch {
  private record Last(boolean ok, long atNanos) {}

  private final long staleNanos;
  private final Map<String, Map<String, Last>> byVantage = new HashMap<>();
  private final Map<String, Boolean> impaired = new HashMap<>();

  public CanaryWatch(long staleNanos) {
    this.staleNanos = staleNanos;
  }

  /**
   * Records one canary result and returns true when it changed the vantage's path state (which is
   * then alert-worthy).
   */
  public boolean record(String vantage, String canary, boolean ok, long nowNanos) {
    byVantage.computeIfAbsent(vantage, v -> new HashMap<>()).put(canary, new Last(ok, nowNanos));
    return refresh(vantage, nowNanos);
  }

  /** Re-derives the vantage's state at {@code nowNanos}; true when it changed. */
  public boolean refresh(String vantage, long nowNanos) {
    boolean now = computeImpaired(vantage, nowNanos);
    Boolean before = impaired.put(vantage, now);
    return before == null ? now : before != now;
  }

  /** True when the vantage's probe path is healthy (as of the last record or refresh). */
  public boolean pathOk(String vantage) {
    return !impaired.getOrDefault(vantage, false);
  }

  private boolean computeImpaired(String vantage, long nowNanos) {
    Map<String, Last> m = byVantage.get(vantage);
    if (m == null) {
      return false;
    }
    int fresh = 0;
    for (Last l : m.values()) {
      if (nowNanos - l.atNanos() <= staleNanos) {
        fresh++;
        if (l.ok()) {
          return false;
        }
      }
    }
    return fresh > 0;
  }

  /** Every vantage seen so far. */
  public Iterable<String> vantages() {
    return byVantage.keySet();
  }
}
