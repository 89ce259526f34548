package io.sluice.core.config;

/**
 * The gates a ramp or drill step must pass: target pools up, probe error rate and p99 latency of
 * the target endpoints below bounds, and optionally an external metric below a threshold. The error
 * rate is judged only over check results gathered since the step began, and only once every target
 * pool has at least {@code minResults} of them: no evidence never passes.
 */
public record GateConfig(
    Boolean requireUp,
    Double maxErrorRate,
    Double maxP99Millis,
    ExternalGateConfig external,
    Integer minResults) {

  /** How many check results per target pool a step needs by default before its gates can pass. */
  public static final int DEFAULT_MIN_RESULTS = 10;

  public GateConfig {
    requireUp = requireUp == null ? Boolean.TRUE : requireUp;
    maxErrorRate = maxErrorRate == null ? 0.05 : maxErrorRate;
    minResults = minResults == null ? DEFAULT_MIN_RESULTS : minResults;
  }

  /** Gates with the default minimum of results. */
  public GateConfig(
      Boolean requireUp, Double maxErrorRate, Double maxP99Millis, ExternalGateConfig external) {
    this(requireUp, maxErrorRate, maxP99Millis, external, null);
  }

  public static GateConfig defaults() {
    return new GateConfig(null, null, null, null, null);
  }

  void validate(String path, Problems p) {
    if (maxErrorRate.isNaN() || maxErrorRate < 0 || maxErrorRate > 1) {
      p.add(Problems.child(path, "maxErrorRate"), "must be 0..1, was " + maxErrorRate);
    }
    if (maxP99Millis != null && (maxP99Millis.isNaN() || maxP99Millis <= 0)) {
      p.add(Problems.child(path, "maxP99Millis"), "must be above 0, was " + maxP99Millis);
    }
    if (minResults < 1) {
      p.add(Problems.child(path, "minResults"), "must be at least 1, was " + minResults);
    }
    if (external != null) {
      external.validate(Problems.child(path, "external"), p);
    }
  }
}
