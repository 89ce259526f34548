package io.sluice.core.spi;

import io.sluice.core.state.Snapshot;
import java.util.Map;

/**
 * The share of clients each pool of a service gets in a snapshot, as the answer planner really
 * decides it (for status). Implementations compute it off the query path, from the same derived
 * state the query path reads, so what status shows is what clients get.
 */
public interface ShareEstimator {

  /** Knows no service: callers fall back to the configured weights. */
  ShareEstimator NONE = (snapshot, service) -> null;

  /**
   * The percent of clients per pool of {@code service} (its absolute lower-case name) in {@code
   * snapshot}, in the service's pool order; shares may add up to less than 100 when some clients
   * get the last resort or no data. Null when the estimator cannot tell (unknown service, or a
   * configuration it has not compiled yet).
   */
  Map<String, Double> shares(Snapshot snapshot, String service);

  /**
   * The same shares for the clients of each region, by region name; null when unknown. Shows what a
   * region-dependent chain (geo, residency, region-scoped shifts) gives each region.
   */
  default Map<String, Map<String, Double>> sharesByRegion(Snapshot snapshot, String service) {
    return null;
  }
}
