package io.sluice.core.health;

/**
 * One vantage's debounced opinion of one endpoint as the nodes of a cluster share it: who holds it
 * ({@code vantage}: a node or a probe agent), the node that publishes it ({@code via}), the
 * opinion, how many consecutive results back it (capped, see docs/health.md), whether the vantage's
 * probe path is healthy, the vantage's region (null when unknown), its median probe RTT in
 * milliseconds (NaN when it has none) and since when it holds this opinion (epoch millis).
 */
public record Opinion(
    String endpoint,
    String vantage,
    String via,
    Verdict opinion,
    int streak,
    boolean pathOk,
    String region,
    double rttMillis,
    long sinceMillis) {

  /** The opinion's key below the cluster's {@code health/} prefix: {@code endpoint/vantage}. */
  public String id() {
    return endpoint + "/" + vantage;
  }
}
