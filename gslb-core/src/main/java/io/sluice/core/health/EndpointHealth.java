package io.sluice.core.health;

import java.util.Map;

/**
 * What is known of one endpoint's health: the verdict, since when and why, whether the evidence is
 * stale (restored after a restart, not yet re-checked), probe latency and error rate over the
 * recent window for the latency selector, and the running count of this node's check results and
 * failures since the endpoint's checks began: ramp gates take the difference of two counts, so they
 * judge only the results gathered since a step began. In a cluster, {@code regionRttMillis} holds,
 * per region, the lowest median probe RTT measured by a vantage declared in that region (the
 * latency step prefers it for clients of that region); empty on a single node.
 */
public record EndpointHealth(
    Verdict verdict,
    long sinceMillis,
    String reason,
    boolean stale,
    double rttP50Millis,
    double rttP99Millis,
    double errorRate,
    long results,
    long failures,
    Map<String, Double> regionRttMillis) {

  public EndpointHealth {
    regionRttMillis = regionRttMillis == null ? Map.of() : Map.copyOf(regionRttMillis);
  }

  /** The health of an endpoint nothing is known about. */
  public static final EndpointHealth UNKNOWN =
      new EndpointHealth(
          Verdict.UNKNOWN,
          0,
          "no check has run yet",
          true,
          Double.NaN,
          Double.NaN,
          0,
          0,
          0,
          Map.of());

  /** Health measured from this node only (no per-region RTT). */
  public EndpointHealth(
      Verdict verdict,
      long sinceMillis,
      String reason,
      boolean stale,
      double rttP50Millis,
      double rttP99Millis,
      double errorRate,
      long results,
      long failures) {
    this(
        verdict,
        sinceMillis,
        reason,
        stale,
        rttP50Millis,
        rttP99Millis,
        errorRate,
        results,
        failures,
        Map.of());
  }

  /** Health without result counts (none gathered yet). */
  public EndpointHealth(
      Verdict verdict,
      long sinceMillis,
      String reason,
      boolean stale,
      double rttP50Millis,
      double rttP99Millis,
      double errorRate) {
    this(verdict, sinceMillis, reason, stale, rttP50Millis, rttP99Millis, errorRate, 0, 0);
  }

  /** A plain verdict with no latency data. */
  public static EndpointHealth of(Verdict verdict, long sinceMillis, String reason) {
    return new EndpointHealth(verdict, sinceMillis, reason, false, Double.NaN, Double.NaN, 0);
  }

  /** The RTT measured from a vantage in {@code region}, or NaN when none has one. */
  public double rttFrom(String region) {
    Double v = region == null ? null : regionRttMillis.get(region);
    return v == null ? Double.NaN : v;
  }
}
