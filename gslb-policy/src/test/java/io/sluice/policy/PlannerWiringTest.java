package io.sluice.policy;

import static io.sluice.policy.Fixtures.client;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Metrics reporting and configuration reloads through the snapshot store. */
class PlannerWiringTest {

  /** Records the policy calls of the metrics SPI. */
  static final class RecordingMetrics implements GslbMetrics {
    final List<String> calls = new ArrayList<>();

    @Override
    public void serviceAnswer(String service, String pool, boolean nearest) {
      calls.add(service + " " + pool + " " + nearest);
    }

    @Override
    public void policyEvent(String service, String event) {
      calls.add(service + " " + event);
    }
  }

  @Test
  void reportsPoolsWithNearestAndPolicyEvents() throws Exception {
    SnapshotStore store = Fixtures.store(PolicyPlannerTest.GEO);
    RecordingMetrics m = new RecordingMetrics();
    PolicyPlanner p = new PolicyPlanner(store, m);
    var eu = client("10.1.0.0", 24);
    p.plan("geo.example.com.", AddressFamily.V4, eu);
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    p.plan("geo.example.com.", AddressFamily.V4, eu);
    Fixtures.setVerdict(store, "us1/198.51.100.1", Verdict.DOWN);
    Fixtures.setVerdict(store, "ap1/203.0.113.1", Verdict.DOWN);
    p.plan("geo.example.com.", AddressFamily.V4, eu);
    assertEquals(
        List.of(
            "geo.example.com. eu1 true",
            "geo.example.com. us1 false",
            "geo.example.com. eu1 true",
            "geo.example.com. fail-open"),
        m.calls);
  }

  @Test
  void aReloadedConfigurationIsCompiledAndServedAfterPublishing() throws Exception {
    SnapshotStore store = Fixtures.store(PolicyPlannerTest.GEO);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var c = client("10.1.0.0", 24);
    assertEquals(List.of("eu1"), p.plan("geo.example.com.", AddressFamily.V4, c).pools());
    var next =
        Fixtures.config(
            """
            - name: geo
              pools: [us2, eu2]
              chain: [healthy, priority]
      """);
    store.update(s -> s.withConfig(next));
    assertEquals(List.of("us2"), p.plan("geo.example.com.", AddressFamily.V4, c).pools());
  }
}
