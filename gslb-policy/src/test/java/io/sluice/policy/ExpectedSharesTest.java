package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shares the planner reports for status ({@link PolicyPlanner#shares}) are what its own {@code
 * plan()} hands out: many random clients, equally many per region, each answer's records counted by
 * pool, for every kind of chain, with shifts (global and region-scoped), a cross-region limit, a
 * down pool and a drain.
 */
class ExpectedSharesTest {
  private static final String SVC = "s.example.com.";
  private static final int PER_REGION = 20_000;

  private static String service(String body) {
    return "      - name: s\n" + body.indent(8);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "pools: [us1, eu1]\nchain: [healthy, priority]",
        "pools: [{ pool: us1, weight: 70 }, { pool: us2, weight: 30 }]\nchain: [healthy, weighted(one)]",
        "pools: [{ pool: mx1, weight: 3 }, { pool: mx2, weight: 1 }]\nchain: [healthy, weighted(mix)]\nmaxRecords: 3",
        "pools: [eu1, us1, ap1]\nchain: [healthy, geo, weighted]",
        "pools: [eu1, eu2, us1, ap1]\nchain: [healthy, geo]",
        "pools: [us1, us2, us3]\nchain: [healthy, hash]",
        "pools: [us1, ap1, ap2]\nchain: [healthy, hash]",
        "pools: [eu1, us1]\nchain: [healthy, hash]\ncrossRegionLimit: 10",
        "pools: [mx1, mx2]\nchain: [healthy, priority, limit(1)]",
        "pools: [eu1, eu2, us1]\nchain: [healthy, residency(eu-only), geo]\nlastResort: { action: empty }"
      })
  void statusSharesAreWhatClientsGet(String body) throws Exception {
    SnapshotStore store =
        new SnapshotStore(
            Snapshot.initial(
                ConfigLoader.parse(
                    // Regions of 16384 /24s each, so that many distinct client hashes are sampled.
                    Fixtures.BASE
                            .replace("10.1.0.0/16", "10.0.0.0/10")
                            .replace("10.2.0.0/16", "10.64.0.0/10")
                            .replace("10.3.0.0/16", "10.128.0.0/10")
                        + service(body),
                    "test.yaml",
                    Path.of("."))));
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    assertClose(p, store);

    // A global shift and a region-scoped one, as a move and a region move leave them.
    List<String> pools = List.copyOf(p.shares(store.current(), SVC).keySet());
    store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        SVC,
                        new ServicePlan(
                            Map.of(),
                            List.of(
                                new Shift("m1", List.of(pools.get(0)), List.of(pools.get(1)), 30),
                                new Shift(
                                    "m2", List.of(pools.get(1)), List.of(pools.get(0)), 50, "us")),
                            null,
                            false))));
    assertClose(p, store);

    // A pool down and another drained.
    for (EndpointConfig e : store.current().config().pools().get(pools.get(0)).endpoints()) {
      Fixtures.setVerdict(store, PoolConfig.endpointKey(pools.get(0), e), Verdict.DOWN);
    }
    store.update(s -> s.withTraffic(s.traffic().withDrained(java.util.Set.of(pools.get(1)))));
    assertClose(p, store);
  }

  private static void assertClose(PolicyPlanner p, SnapshotStore store) throws Exception {
    Map<String, Double> shown = p.shares(store.current(), SVC);
    Map<String, Double> seen = observed(p, store);
    double sum = 0;
    for (Map.Entry<String, Double> e : shown.entrySet()) {
      sum += e.getValue();
      double s = seen.getOrDefault(e.getKey(), 0.0);
      assertTrue(
          Math.abs(s - e.getValue()) <= 1.5, "status shows " + shown + " but clients got " + seen);
    }
    assertTrue(sum <= 100.3, "shares add up to at most 100: " + shown);
  }

  /** Percent of clients per pool from plan(): each region equally, each record 1/n. */
  private static Map<String, Double> observed(PolicyPlanner p, SnapshotStore store)
      throws Exception {
    Map<String, String> poolOf = new HashMap<>();
    store
        .current()
        .config()
        .pools()
        .forEach(
            (name, pc) ->
                pc.endpoints()
                    .forEach(
                        e -> {
                          if (e.address() != null) {
                            poolOf.put(e.address(), name);
                          }
                        }));
    Random rnd = new Random(7);
    Map<String, Double> out = new HashMap<>();
    for (int region = 1; region <= 3; region++) {
      for (int i = 0; i < PER_REGION; i++) {
        byte[] a = {10, (byte) (64 * (region - 1) + rnd.nextInt(64)), (byte) rnd.nextInt(256), 0};
        ClientInfo c = ClientInfo.ofSubnet(a, 24);
        Decision d = p.plan(SVC, AddressFamily.V4, c);
        for (byte[] addr : d.addresses()) {
          String pool = poolOf.get(InetAddress.getByAddress(addr).getHostAddress());
          out.merge(pool, 100.0 / d.addresses().size() / (3.0 * PER_REGION), Double::sum);
        }
      }
    }
    assertEquals(false, out.containsKey(null), "every address maps to a pool");
    return out;
  }
}
