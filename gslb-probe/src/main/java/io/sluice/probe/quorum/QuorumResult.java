package io.sluice.probe.quorum;

import io.sluice.core.health.Verdict;

/**
 * The combined opinion of the eligible vantages: the candidate verdict ({@link Verdict#UNKNOWN}
 * when no vantage is eligible), the votes, the number needed, and the weakest streak among the
 * vantages that agree with the candidate.
 */
public record QuorumResult(
    Verdict verdict, int eligible, int needed, int down, int suspect, int up, int streak) {

  /** The votes in words, for reasons and audit: {@code 2 of 3 vantages down (quorum 2)}. */
  public String summary() {
    if (eligible == 0) {
      return "no vantage has fresh results over a healthy probe path";
    }
    return down
        + " down, "
        + suspect
        + " suspect, "
        + up
        + " up of "
        + eligible
        + " vantage"
        + (eligible == 1 ? "" : "s")
        + " (quorum "
        + needed
        + ")";
  }
}
