package io.sluice.core.health;

/**
 * What is known of one endpoint's health: the verdict, since when and why, whether the evidence is
 * stale (restored after a restart, not yet re-checked), and probe latency and error rate over the
 * recent window for the latency selector and ramp gates.
 */
public record EndpointHealth(
    Verdict verdict,
    long sinceMillis,
    String reason,
    boolean stale,
    double rttP50Millis,
    double rttP99Millis,
    double errorRate) {

  /** The health of an endpoint nothing is known about. */
  public static final EndpointHealth UNKNOWN =
      new EndpointHealth(
          Verdict.UNKNOWN, 0, "no check has run yet", true, Double.NaN, Double.NaN, 0);

  /** A plain verdict with no latency data. */
  public static EndpointHealth of(Verdict verdict, long sinceMillis, String reason) {
    return new EndpointHealth(verdict, sinceMillis, reason, false, Double.NaN, Double.NaN, 0);
  }
}
