package io.sluice.core.spi;

import java.util.List;
import java.util.Optional;

/** What a service's shadow chain would have answered on the sampled queries, for the admin API. */
public interface ShadowReporter {

  /** No shadow chains (a planner without a sampler). */
  ShadowReporter NONE = service -> Optional.empty();

  /** The report of {@code service} (its FQDN), or empty when it has no shadow chain. */
  Optional<ShadowReport> shadow(String service);

  /**
   * The live and candidate chains, the sampling rate, since when the counts run (the configuration
   * they were compiled from was published then), the counts over every region ({@code all}) and per
   * client region, and the samples dropped because the evaluating thread was behind.
   */
  record ShadowReport(
      String service,
      List<String> chain,
      List<String> candidate,
      double sample,
      long sinceMillis,
      RegionReport all,
      List<RegionReport> regions,
      long dropped) {
    public ShadowReport {
      chain = List.copyOf(chain);
      candidate = List.copyOf(candidate);
      regions = List.copyOf(regions);
    }
  }

  /**
   * Counts over the sampled queries of clients of one region: how many were sampled, how many would
   * have got a different set of pools from the candidate and from how many distinct client subnets;
   * the share of answers served only from the client's own region (nearest hit) and with a pool of
   * another region (cross-region), live and candidate.
   */
  record RegionReport(
      String region,
      long sampled,
      long differing,
      long clientsDiffering,
      double liveNearest,
      double candidateNearest,
      double liveCrossRegion,
      double candidateCrossRegion) {}
}
