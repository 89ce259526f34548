package io.sluice.core.config;

/**
 * The gates a ramp or drill step must pass: target pools up, probe error rate and p99 latency of
 * the target endpoints below bounds, and optionally an external metric below a threshold.
 */
public record GateConfig(
    Boolean requireUp, Double maxErrorRate, Double maxP99Millis, ExternalGateConfig external) {

  public GateConfig {
    requireUp = requireUp == null ? Boolean.TRUE : requireUp;
    maxErrorRate = maxErrorRate == null ? 0.05 : maxErrorRate;
  }

  public static GateConfig defaults() {
    return new GateConfig(null, null, null, null);
  }

  void validate(String path, Problems p) {
    if (maxErrorRate.isNaN() || maxErrorRate < 0 || maxErrorRate > 1) {
      p.add(Problems.child(path, "maxErrorRate"), "must be 0..1, was " + maxErrorRate);
    }
    if (maxP99Millis != null && (maxP99Millis.isNaN() || maxP99Millis <= 0)) {
      p.add(Problems.child(path, "maxP99Millis"), "must be above 0, was " + maxP99Millis);
    }
    if (external != null) {
      external.validate(Problems.child(path, "external"), p);
    }
  }
}
