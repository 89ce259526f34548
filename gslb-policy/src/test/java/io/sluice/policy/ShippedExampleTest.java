package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The shipped example compiles for the policy chain and shows every selector at work. */
class ShippedExampleTest {

  @Test
  void everySelectorHasAServiceAndEveryServiceAnswers() throws Exception {
    SluiceConfig c = ConfigLoader.load(Path.of("..", "config", "sluice.yaml"));
    assertEquals(List.of(), PolicyPlanner.check(c, "sluice.yaml"));
    Set<String> steps = new HashSet<>();
    for (ServiceConfig s : c.services()) {
      s.steps().forEach(st -> steps.add(st.name()));
    }
    assertEquals(
        Set.of(
            "healthy",
            "residency",
            "geo",
            "priority",
            "latency",
            "capacity",
            "weighted",
            "hash",
            "limit"),
        steps);
    PolicyPlanner p = new PolicyPlanner(new SnapshotStore(Snapshot.initial(c)), GslbMetrics.NOOP);
    for (ServiceConfig s : c.services()) {
      Decision d =
          p.plan(s.fqdn("example.com."), AddressFamily.V4, Fixtures.client("10.1.0.0", 24));
      assertEquals(Decision.Outcome.ANSWER, d.outcome(), s.name());
      assertTrue(!d.addresses().isEmpty(), s.name());
    }
    Decision eu = p.plan("geo.example.com.", AddressFamily.V4, Fixtures.client("10.1.0.0", 24));
    Decision ap = p.plan("geo.example.com.", AddressFamily.V4, Fixtures.client("10.3.0.0", 24));
    assertNotEquals(eu.pools(), ap.pools());
    assertEquals(List.of("ap-east-1"), ap.pools());
  }
}
