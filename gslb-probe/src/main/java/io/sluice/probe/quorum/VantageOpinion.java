package io.sluice.probe.quorum;

import io.sluice.core.health.Verdict;

/**
 * One vantage's debounced opinion of one endpoint, with how many consecutive results back it,
 * whether its results are fresh and whether its probe path (canaries) is healthy.
 */
public record VantageOpinion(
    String vantage, Verdict opinion, int streak, boolean fresh, boolean pathOk) {

  /** True when this opinion counts towards the quorum. */
  public boolean eligible() {
    return fresh && pathOk && opinion != Verdict.UNKNOWN;
  }
}
