package io.sluice.admin.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.divergence.PeriodicDivergenceCheck;

/** The periodic answer-divergence check's figures, read from its last completed run. */
public final class DivergenceMeters {
  private DivergenceMeters() {}

  /** Registers the check's meters in {@code registry}. */
  public static void register(MeterRegistry registry, PeriodicDivergenceCheck check) {
    Gauge.builder("sluice_cluster_divergent_answers", check, c -> c.last().divergent())
        .description(
            "Answers (service, type, client subnet) that differed between the cluster's nodes in"
                + " the last divergence check")
        .register(registry);
    Gauge.builder("sluice_cluster_divergence_unanswered", check, c -> c.last().unanswered())
        .description(
            "Answers some node did not give (timeout, no connection) in the last divergence"
                + " check")
        .register(registry);
    FunctionCounter.builder("sluice_cluster_divergence_checks", check, c -> c.last().checks())
        .description("Divergence checks completed")
        .register(registry);
    Gauge.builder(
            "sluice_cluster_divergence_last_run_timestamp_seconds",
            check,
            c -> c.last().finishedMillis() / 1000.0)
        .description("When the last divergence check finished (0: none yet)")
        .register(registry);
  }
}
