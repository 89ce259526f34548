package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.PoolConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Random health and drain states: the red lines must hold for every client in every state. */
class RedLinePropertyTest {
  static final List<String> POOLS =
      List.of("eu1", "eu2", "eu3", "us1", "us2", "us3", "ap1", "ap2", "ap3");
  static final Set<String> EU_ONLY = Set.of("eu1", "eu2", "eu3");

  @Test
  void downOrDrainedPoolsAndResidencyAreNeverBroken() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: red
              pools: %s
              chain: [healthy, residency(eu-only), geo, capacity, weighted(mix)]
              crossRegionLimit: 20
            """
                .formatted(Fixtures.ALL_POOLS)
                .indent(0)
                .replace("\n- ", "\n      - ")
                .replace("\n  ", "\n        ")
                .replaceFirst("^- ", "      - "));
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var config = store.current().config();
    Random rnd = new Random(1234);
    String[] clients = {"10.1.0.0", "10.2.0.0", "10.3.0.0", "172.16.0.0"};
    for (int round = 0; round < 300; round++) {
      Map<String, EndpointHealth> health = new HashMap<>();
      Set<String> drained = new HashSet<>();
      Set<String> usablePools = new HashSet<>();
      Map<String, Double> loads = new HashMap<>();
      for (String pool : POOLS) {
        boolean poolDrained = rnd.nextInt(10) == 0;
        if (poolDrained) {
          drained.add(pool);
        }
        loads.put(pool, rnd.nextDouble() * 1200);
        for (var e : config.pools().get(pool).endpoints()) {
          String key = PoolConfig.endpointKey(pool, e);
          Verdict v = Verdict.values()[rnd.nextInt(Verdict.values().length)];
          health.put(key, EndpointHealth.of(v, 0, "random"));
          if (v.usable() && !poolDrained && e.addressBytes().length == 4) {
            usablePools.add(pool);
          }
        }
      }
      store.update(
          s ->
              s.withHealth(HealthView.of(health, s.health().version() + 1).withPoolLoads(loads))
                  .withTraffic(s.traffic().withDrained(drained)));
      for (String c : clients) {
        for (int i = 0; i < 20; i++) {
          byte[] a = Fixtures.client(c, 16).address();
          a[2] = (byte) rnd.nextInt(256);
          ClientInfo client = ClientInfo.ofSubnet(a, 24);
          Decision d = p.plan("red.example.com.", AddressFamily.V4, client);
          boolean eu = c.equals("10.1.0.0");
          Set<String> allowedUsable = new HashSet<>(usablePools);
          if (eu) {
            allowedUsable.retainAll(EU_ONLY);
            assertTrue(EU_ONLY.containsAll(d.pools()), "residency broken: " + d.pools());
          }
          if (!allowedUsable.isEmpty()) {
            assertTrue(
                allowedUsable.containsAll(d.pools()) && !d.pools().isEmpty(),
                "round "
                    + round
                    + " "
                    + c
                    + ": "
                    + d.pools()
                    + " not within usable "
                    + allowedUsable);
          } else if (eu) {
            assertEquals(Decision.Outcome.ANSWER, d.outcome());
          }
        }
      }
    }
  }
}
