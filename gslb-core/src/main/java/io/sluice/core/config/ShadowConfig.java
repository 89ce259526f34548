package io.sluice.core.config;

import java.util.List;

/**
 * A service's candidate chain, evaluated beside the live one on a sample of real queries and never
 * served: {@code chain} has the same syntax and rules as the service's {@code chain}; {@code
 * sample} is the fraction of the service's queries evaluated (default 0.01, at most 1).
 */
public record ShadowConfig(List<String> chain, Double sample) {

  /** The default share of queries evaluated against the candidate. */
  public static final double DEFAULT_SAMPLE = 0.01;

  public ShadowConfig {
    chain = chain == null ? List.of() : List.copyOf(chain);
    sample = sample == null ? DEFAULT_SAMPLE : sample;
  }

  void validate(String path, Problems p) {
    if (chain.isEmpty()) {
      p.add(Problems.child(path, "chain"), "at least one step is required");
    }
    if (!(sample > 0 && sample <= 1)) {
      p.add(Problems.child(path, "sample"), "must be more than 0 and at most 1, was " + sample);
    }
  }
}
