package io.sluice.probe.check;

/**
 * The outcome of one check run: whether it passed, how long it took (real time, connect to last
 * byte), a low-cardinality {@code reason} for metrics ({@code ok}, {@code refused}, {@code
 * timeout}, {@code status}, {@code body}, {@code latency}, {@code tls}, {@code resolve}, {@code
 * io}) and a human-readable error for audit evidence (null when ok).
 */
public record CheckResult(boolean ok, long rttNanos, String reason, String error) {

  /** A passing result. */
  public static CheckResult pass(long rttNanos) {
    return new CheckResult(true, rttNanos, "ok", null);
  }

  /** A failing result. */
  public static CheckResult fail(long rttNanos, String reason, String error) {
    return new CheckResult(false, rttNanos, reason, error);
  }

  /** Round-trip time in milliseconds. */
  public double rttMillis() {
    return rttNanos / 1e6;
  }
}
