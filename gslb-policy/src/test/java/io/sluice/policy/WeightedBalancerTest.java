package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.SnapshotStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WeightedBalancerTest {
  static final int CLIENTS = 200_000;

  static String service(String style, int w1, int w2, int w3) {
    return """
            - name: w
              pools: [{ pool: mx1, weight: %d }, { pool: mx2, weight: %d }, { pool: mx3, weight: %d }]
              chain: [healthy, weighted(%s)]
              maxRecords: 4
      """
        .formatted(w1, w2, w3, style);
  }

  /** Share of answer records per pool over many random clients (each record counts 1/n). */
  static Map<String, Double> shares(PolicyPlanner p, long seed) {
    Map<String, Double> out = new HashMap<>();
    Random rnd = new Random(seed);
    for (int i = 0; i < CLIENTS; i++) {
      Decision d = p.plan("w.example.com.", AddressFamily.V4, Fixtures.randomV4(rnd));
      for (byte[] a : d.addresses()) {
        String pool = "mx" + (a[2] & 0xff);
        out.merge(pool, 1.0 / d.addresses().size() / CLIENTS, Double::sum);
      }
    }
    return out;
  }

  @ParameterizedTest
  @CsvSource({
    "one,70,20,10",
    "one,1,1,1",
    "one,97,2,1",
    "mix,70,20,10",
    "mix,50,30,20",
    "mix,1,1,1"
  })
  void sharesStayWithinOnePercentagePointOfTheWeights(String style, int w1, int w2, int w3)
      throws Exception {
    PolicyPlanner p =
        new PolicyPlanner(Fixtures.store(service(style, w1, w2, w3)), GslbMetrics.NOOP);
    Map<String, Double> s = shares(p, 42);
    double total = w1 + w2 + w3;
    assertEquals(w1 / total, s.getOrDefault("mx1", 0.0), 0.01, s.toString());
    assertEquals(w2 / total, s.getOrDefault("mx2", 0.0), 0.01, s.toString());
    assertEquals(w3 / total, s.getOrDefault("mx3", 0.0), 0.01, s.toString());
  }

  @ParameterizedTest
  @CsvSource({"one", "mix"})
  void aClientKeepsItsAnswerWhileWeightsHold(String style) throws Exception {
    SnapshotStore store = Fixtures.store(service(style, 5, 3, 2));
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    ClientInfo c = Fixtures.client("198.18.7.0", 24);
    Decision first = p.plan("w.example.com.", AddressFamily.V4, c);
    for (int i = 0; i < 50; i++) {
      assertSame(
          first, p.plan("w.example.com.", AddressFamily.V4, Fixtures.client("198.18.7." + i, 32)));
    }
  }

  @ParameterizedTest
  @CsvSource({"one", "mix"})
  void operatorWeightOverridesReplaceConfiguredWeights(String style) throws Exception {
    SnapshotStore store = Fixtures.store(service(style, 1, 1, 1));
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        "w.example.com.",
                        ServicePlan.DEFAULT.withWeights(Map.of("mx1", 0, "mx2", 0, "mx3", 5)))));
    Map<String, Double> sh = shares(p, 3);
    assertEquals(1.0, sh.getOrDefault("mx3", 0.0), 1e-9, sh.toString());
    assertEquals(List.of("mx3"), List.copyOf(sh.keySet()));
  }
}
