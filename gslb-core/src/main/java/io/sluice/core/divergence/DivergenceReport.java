package io.sluice.core.divergence;

import java.util.List;
import java.util.Map;

/**
 * The outcome of one divergence check of one service and record type: the nodes asked, how many
 * subnets were asked, and every subnet whose answers were not identical.
 */
public record DivergenceReport(
    String service,
    String type,
    List<DivergenceCheck.Target> nodes,
    int subnets,
    List<SubnetResult> findings,
    long elapsedMillis) {

  public DivergenceReport {
    nodes = List.copyOf(nodes);
    findings = List.copyOf(findings);
  }

  /** How one subnet came out. */
  public enum Outcome {
    /** Every node answered, all the same. */
    SAME,
    /** At least two nodes answered differently. */
    DIFFERENT,
    /** The nodes that answered agree, but at least one node did not answer. */
    UNANSWERED
  }

  /**
   * One subnet that was not {@link Outcome#SAME}: every node's answer (in node order) and the nodes
   * that differ from the answer most nodes gave (ties: the first node's answer).
   */
  public record SubnetResult(
      String subnet, Outcome outcome, Map<String, NodeAnswer> answers, List<String> differing) {
    public SubnetResult {
      answers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(answers));
      differing = List.copyOf(differing);
    }
  }

  /** Subnets whose answers differed between nodes. */
  public long different() {
    return findings.stream().filter(f -> f.outcome() == Outcome.DIFFERENT).count();
  }

  /** Subnets some node did not answer for (the others agreeing). */
  public long unanswered() {
    return findings.stream().filter(f -> f.outcome() == Outcome.UNANSWERED).count();
  }

  /** True when every node answered every subnet identically. */
  public boolean identical() {
    return findings.isEmpty();
  }
}
