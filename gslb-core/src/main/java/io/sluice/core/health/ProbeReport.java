package io.sluice.core.health;

import java.util.List;

/**
 * Check results from one vantage (a remote probe agent or another node), as posted to the admin
 * API. {@code check} is {@code heartbeat}, {@code fullLink} or {@code canary}.
 */
public record ProbeReport(String vantage, long timeMillis, List<Result> results) {

  public ProbeReport {
    results = results == null ? List.of() : List.copyOf(results);
  }

  /** One check result for one endpoint (or canary target). */
  public record Result(String endpoint, String check, boolean ok, double rttMillis, String error) {}

  /** Where reports are delivered. */
  public interface Sink {
    /** Accepts a report; throws IllegalArgumentException naming the bad field. */
    void accept(ProbeReport report);
  }
}
