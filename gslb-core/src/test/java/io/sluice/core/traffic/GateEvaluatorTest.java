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

  private static EndpointHealth h(Verdict v, double p99, double err) {
    return new EndpointHealth(v, 0, "t", false, Double.NaN, p99, err);
  }

  @Test
  void measuresTheWorstTargetEndpoint() throws Exception {
    SluiceConfig config = TrafficFixture.config("");
    HealthView view =
        HealthView.of(
            Map.of(
                "primary/a", h(Verdict.UP, 80, 0.01),
                "primary/b", h(Verdict.SUSPECT, 300, 0.02),
                "standby/a", h(Verdict.UP, 900, 0.9)),
            1);
    GateConfig g = new GateConfig(true, 0.05, 250.0, null);
    GateResult r = gates.evaluate(config, view, List.of("primary"), g);
    assertFalse(r.passed());
    assertEquals(300.0, r.measured().get("p99Millis"));
    assertEquals(0.02, r.measured().get("errorRate"));
    assertEquals(Map.of("primary", "1/2"), r.measured().get("upEndpoints"));
    assertTrue(r.failure().contains("p99 300.0 ms above 250.0 ms"), r.failure());

    assertTrue(
        gates
            .evaluate(config, view, List.of("primary"), new GateConfig(true, 0.05, 400.0, null))
            .passed());
  }

  @Test
  void aTargetWithNoEndpointUpFailsAndUnknownEndpointsMeasureNothing() throws Exception {
    SluiceConfig config = TrafficFixture.config("");
    GateResult r =
        gates.evaluate(config, HealthView.EMPTY, List.of("spare"), GateConfig.defaults());
    assertFalse(r.passed());
    assertEquals("pool spare has no endpoint up", r.failure());
    assertEquals(0.0, r.measured().get("errorRate"));
    GateResult lenient =
        gates.evaluate(
            config, HealthView.EMPTY, List.of("spare"), new GateConfig(false, null, null, null));
    assertTrue(lenient.passed());
  }

  @Test
  void anUnreadableExternalMetricFailsItsGate() throws Exception {
    GateEvaluator failing =
        new GateEvaluator(
            g -> {
              throw new java.io.IOException("connection refused");
            });
    SluiceConfig config = TrafficFixture.config("");
    HealthView view = HealthView.of(Map.of("spare/a", h(Verdict.UP, 1, 0)), 1);
    GateConfig g =
        new GateConfig(
            true,
            null,
            null,
            new io.sluice.core.config.ExternalGateConfig("http://127.0.0.1:1", "up", 1.0, null));
    GateResult r = failing.evaluate(config, view, List.of("spare"), g);
    assertFalse(r.passed());
    assertEquals("connection refused", r.measured().get("externalError"));
  }
}
