package io.sluice.probe.latency;

import java.util.Arrays;

/**
 * The last {@value #SIZE} check results of one endpoint from this node: round-trip percentiles over
 * the passing ones and the error rate over all. Not thread-safe: used only on the probe engine's
 * thread.
 */
public final class LatencyWindow {
  /** How many results the window holds. */
  public static final int SIZE = 64;

  private final double[] rtt = new double[SIZE];
  private final boolean[] ok = new boolean[SIZE];
  private int next;
  private int count;
  private long results;
  private long failures;

  /** Adds one result. */
  public void add(boolean passed, double rttMillis) {
    rtt[next] = rttMillis;
    ok[next] = passed;
    next = (next + 1) % SIZE;
    count = Math.min(count + 1, SIZE);
    results++;
    if (!passed) {
      failures++;
    }
  }

  /** Every result added so far, not only those in the window. */
  public long results() {
    return results;
  }

  /** Every failed result added so far. */
  public long failures() {
    return failures;
  }

  /** The {@code q}-quantile (0..1) of passing round trips in ms, NaN when none passed. */
  public double percentile(double q) {
    double[] sorted = new double[count];
    int n = 0;
    for (int i = 0; i < count; i++) {
      if (ok[i]) {
        sorted[n++] = rtt[i];
      }
    }
    if (n == 0) {
      return Double.NaN;
    }
    Arrays.sort(sorted, 0, n);
    int idx = (int) Math.ceil(q * n) - 1;
    return sorted[Math.max(0, Math.min(n - 1, idx))];
  }

  /** Failed results over all results in the window (0 when empty). */
  public double errorRate() {
    if (count == 0) {
      return 0;
    }
    int failed = 0;
    for (int i = 0; i < count; i++) {
      if (!ok[i]) {
        failed++;
      }
    }
    return (double) failed / count;
  }
}
