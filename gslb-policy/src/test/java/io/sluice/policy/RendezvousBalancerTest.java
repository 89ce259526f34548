package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import io.sluice.policy.hash.RendezvousBalancer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RendezvousBalancerTest {
  static final String EQUAL =
      """
            - name: h
              pools: [eu1, eu2, eu3, us1]
              chain: [healthy, hash]
      """;
  static final String[] ADDR = {"192.0.2.1", "192.0.2.2", "192.0.2.3", "198.51.100.1"};

  static String poolOf(PolicyPlanner p, ClientInfo c) {
    return p.plan("h.example.com.", AddressFamily.V4, c).pools().get(0);
  }

  @Test
  void sharesAreEvenWithinOnePercentagePoint() throws Exception {
    PolicyPlanner p = new PolicyPlanner(Fixtures.store(EQUAL), GslbMetrics.NOOP);
    Map<String, Integer> counts = new HashMap<>();
    Random rnd = new Random(11);
    int n = 200_000;
    for (int i = 0; i < n; i++) {
      counts.merge(poolOf(p, Fixtures.randomV4(rnd)), 1, Integer::sum);
    }
    for (String pool : List.of("eu1", "eu2", "eu3", "us1")) {
      assertEquals(0.25, counts.get(pool) / (double) n, 0.01, counts.toString());
    }
  }

  @Test
  void onlyTheDroppedPoolsClientsMoveAndTheyComeBack() throws Exception {
    SnapshotStore store = Fixtures.store(EQUAL);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Random rnd = new Random(5);
    int n = 50_000;
    ClientInfo[] clients = new ClientInfo[n];
    String[] before = new String[n];
    for (int i = 0; i < n; i++) {
      clients[i] = Fixtures.randomV4(rnd);
      before[i] = poolOf(p, clients[i]);
    }
    Fixtures.setVerdict(store, "eu2/192.0.2.2", Verdict.DOWN);
    int moved = 0;
    for (int i = 0; i < n; i++) {
      String now = poolOf(p, clients[i]);
      if (before[i].equals("eu2")) {
        assertTrue(!now.equals("eu2"));
        moved++;
      } else {
        assertEquals(before[i], now, "a client of a healthy pool moved");
      }
    }
    assertEquals(0.25, moved / (double) n, 0.01);
    Fixtures.setVerdict(store, "eu2/192.0.2.2", Verdict.UP);
    for (int i = 0; i < n; i++) {
      assertEquals(before[i], poolOf(p, clients[i]));
    }
  }

  @Test
  void sameSubnetSamePoolFromAnyResolver() throws Exception {
    PolicyPlanner a = new PolicyPlanner(Fixtures.store(EQUAL), GslbMetrics.NOOP);
    PolicyPlanner b = new PolicyPlanner(Fixtures.store(EQUAL), GslbMetrics.NOOP);
    ClientInfo ecs = Fixtures.client("203.0.113.0", 24);
    ClientInfo direct = ClientInfo.ofResolver(Fixtures.client("203.0.113.77", 32).address());
    assertEquals(poolOf(a, ecs), poolOf(b, direct));
  }

  @Test
  void unequalCapacitiesDegradeToWeightedByCapacity() throws Exception {
    String mixed =
        """
            - name: h
              pools: [eu1, ap1]
              chain: [healthy, hash(10)]
      """;
    List<String> warnings = PolicyPlanner.check(Fixtures.config(mixed), "test.yaml");
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("zones[0].services[0].chain[1]"), warnings.get(0));
    PolicyPlanner p = new PolicyPlanner(Fixtures.store(mixed), GslbMetrics.NOOP);
    Map<String, Integer> counts = new HashMap<>();
    Random rnd = new Random(2);
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      counts.merge(poolOf(p, Fixtures.randomV4(rnd)), 1, Integer::sum);
    }
    // eu1 has capacity 1000, ap1 500.
    assertEquals(2.0 / 3, counts.get("eu1") / (double) n, 0.01, counts.toString());
    var e = p.explain("h.example.com.", AddressFamily.V4, Fixtures.client("198.18.0.0", 24));
    assertTrue(e.steps().get(e.steps().size() - 1).note().contains("weighted by capacity"));
  }

  @Test
  void mismatchIsWithinTolerance() {
    assertEquals(null, RendezvousBalancer.mismatch(new long[] {1000, 1050}, 10));
    assertNotNull(RendezvousBalancer.mismatch(new long[] {1000, 1150}, 10));
    assertEquals(null, RendezvousBalancer.mismatch(new long[] {1000, 0}, 10));
  }
}
