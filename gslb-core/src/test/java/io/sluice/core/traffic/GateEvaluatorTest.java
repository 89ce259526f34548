package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.GateConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GateEvaluatorTest {
  final GateEvaluator gates = new GateEvaluator(g -> 0.0);

  private static EndpointHealth h(Verdict v, double p99, long results, long failures) {
    double err = results == 0 ? 0 : (double) failures / results;
    return new EndpointHealth(v, 0, "t", false, Double.NaN, p99, err, results, failures);
  }

  @Test
  void judgesOnlyTheResultsGatheredSinceTheStepBegan() throws Exception {
    SluiceConfig config = TrafficFixture.config("");
    GateConfig g = new GateConfig(true, 0.05, 250.0, null, 10);
    // The outage before the step: 64 results, 60 of them failures.
    HealthView outage =
        HealthView.of(
            Map.of(
                "primary/a", h(Verdict.UP, 80, 64, 60),
                "primary/b", h(Verdict.UP, 90, 64, 60)),
            1);
    GateResult first = gates.evaluate(config, outage, List.of("primary"), g, "ramp-1@0");
    assertEquals(GateResult.Status.WAITING, first.status(), "no evidence since the step yet");
    assertEquals(Map.of("primary", 0L), first.measured().get("resultsSinceStep"));

    HealthView few =
        HealthView.of(
            Map.of(
                "primary/a", h(Verdict.UP, 80, 68, 60),
                "primary/b", h(Verdict.UP, 90, 68, 60)),
            2);
    assertEquals(
        GateResult.Status.WAITING,
        gates.evaluate(config, few, List.of("primary"), g, "ramp-1@0").status(),
        "8 results are fewer than minResults 10");

    HealthView recovered =
        HealthView.of(
            Map.of(
                "primary/a", h(Verdict.UP, 80, 74, 60),
                "primary/b", h(Verdict.UP, 90, 74, 61)),
            3);
    GateResult r = gates.evaluate(config, recovered, List.of("primary"), g, "ramp-1@0");
    assertTrue(r.passed(), r.measured() + " " + r.failure());
    assertEquals(0.05, (double) r.measured().get("errorRate"), 1e-9, "1 failure in 20 since");
    assertEquals(Map.of("primary", 20L), r.measured().get("resultsSinceStep"));

    // The same health judged from the beginning of the outage fails: that is what a gate over
    // the whole window did.
    GateResult whole = gates.evaluate(config, recovered, List.of("primary"), g, "other");
    assertEquals(GateResult.Status.WAITING, whole.status(), "a new epoch starts from nothing");
  }

  @Test
  void failuresSinceTheStepFailItAndP99IsBounded() throws Exception {
    SluiceConfig config = TrafficFixture.config("");
    GateConfig g = new GateConfig(true, 0.05, 250.0, null, 5);
    gates.evaluate(
        config,
        HealthView.of(Map.of("standby/a", h(Verdict.UP, 100, 10, 0)), 1),
        List.of("standby"),
        g,
        "e");
    GateResult r =
        gates.evaluate(
            config,
            HealthView.of(Map.of("standby/a", h(Verdict.UP, 300, 20, 2)), 2),
            List.of("standby"),
            g,
            "e");
    assertTrue(r.failed());
    assertEquals(0.2, (double) r.measured().get("errorRate"), 1e-9);
    assertTrue(r.failure().contains("error rate 0.2 above 0.05"), r.failure());
    assertTrue(r.failure().contains("p99 300.0 ms above 250.0 ms"), r.failure());
  }

  @Test
  void aTargetWithNoEndpointUpFailsAtOnce() throws Exception {
    SluiceConfig config = TrafficFixture.config("");
    GateResult r =
        gates.evaluate(config, HealthView.EMPTY, List.of("spare"), GateConfig.defaults(), "e");
    assertTrue(r.failed());
    assertEquals("pool spare has no endpoint up", r.failure());
    GateResult lenient =
        gates.evaluate(
            config,
            HealthView.EMPTY,
            List.of("spare"),
            new GateConfig(false, null, null, null),
            "e");
    assertFalse(lenient.passed(), "no evidence never passes");
    assertFalse(lenient.failed());
  }

  @Test
  void anUnreadableExternalMetricFailsItsGate() throws Exception {
    GateEvaluator failing =
        new GateEvaluator(
            g -> {
              throw new java.io.IOException("connection refused");
            });
    SluiceConfig config = TrafficFixture.config("");
    GateConfig g =
        new GateConfig(
            true,
            null,
            null,
            new io.sluice.core.config.ExternalGateConfig("http://127.0.0.1:1", "up", 1.0, null),
            1);
    failing.evaluate(
        config,
        HealthView.of(Map.of("spare/a", h(Verdict.UP, 1, 0, 0)), 1),
        List.of("spare"),
        g,
        "e");
    GateResult r =
        failing.evaluate(
            config,
            HealthView.of(Map.of("spare/a", h(Verdict.UP, 1, 3, 0)), 2),
            List.of("spare"),
            g,
            "e");
    assertTrue(r.failed());
    assertEquals("connection refused", r.measured().get("externalError"));
  }
}
