package io.sluice.policy;

import static io.sluice.policy.Fixtures.client;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A health or traffic change re-derives only the services whose inputs it changed, before the
 * snapshot is published, and every answer is still the one a full derivation gives.
 */
class IncrementalDeriveTest {
  private static final String SERVICES =
      """
            - name: prio
              pools: [eu1, us1]
              chain: [healthy, priority]
            - name: lat
              pools: [eu1, us1]
              chain: [healthy, latency]
            - name: ap
              pools: [ap1, ap2]
              chain: [healthy, priority]
      """;
  private static final String[] KEYS = {
    "eu1/192.0.2.1", "eu1/2001:db8::1", "us1/198.51.100.1", "us1/2001:db8::2"
  };

  @Test
  void aSweepThatOnlyMovesLatenciesReDerivesOnlyTheServicesThatReadThem() throws Exception {
    SnapshotStore store = Fixtures.store(SERVICES);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    ClientInfo eu = client("10.1.0.0", 24);
    store.update(s -> s.withHealth(latencies(s.health(), 40, 12, 1)));
    assertEquals(List.of("us1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
    Decision prio = p.plan("prio.example.com.", AddressFamily.V4, eu);
    Decision ap = p.plan("ap.example.com.", AddressFamily.V4, eu);

    long before = p.derivedStates();
    // The next sweep: eu1 is now the nearer pool, and every endpoint has more results.
    store.update(s -> s.withHealth(latencies(s.health(), 5, 12, 2)));
    assertEquals(1, p.derivedStates() - before, "only the latency service is derived again");
    assertEquals(List.of("eu1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
    assertSame(prio, p.plan("prio.example.com.", AddressFamily.V4, eu));
    assertSame(ap, p.plan("ap.example.com.", AddressFamily.V4, eu));
    assertSameAsAFullDerivation(store, p);
  }

  @Test
  void aVerdictChangeReDerivesTheServicesOfThatPoolAlone() throws Exception {
    StringBuilder services = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      services.append("      - { name: e").append(i).append(", pools: [eu1, eu2] }\n");
      services.append("      - { name: u").append(i).append(", pools: [us2, us3] }\n");
    }
    SnapshotStore store = Fixtures.store(services.toString());
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    ClientInfo eu = client("10.1.0.0", 24);
    List<Decision> us = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      assertEquals(List.of("eu1"), p.plan("e" + i + ".example.com.", AddressFamily.V4, eu).pools());
      us.add(p.plan("u" + i + ".example.com.", AddressFamily.V4, eu));
    }

    long before = p.derivedStates();
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    Fixtures.setVerdict(store, "eu1/2001:db8::1", Verdict.DOWN);
    assertEquals(40, p.derivedStates() - before, "20 services of eu1, derived once per change");
    for (int i = 0; i < 20; i++) {
      assertEquals(List.of("eu2"), p.plan("e" + i + ".example.com.", AddressFamily.V4, eu).pools());
      assertSame(us.get(i), p.plan("u" + i + ".example.com.", AddressFamily.V4, eu));
    }

    // A verdict that stays usable (UP to SUSPECT) changes nothing a service reads.
    before = p.derivedStates();
    Fixtures.setVerdict(store, "us2/198.51.100.2", Verdict.SUSPECT);
    assertEquals(0, p.derivedStates() - before);
    assertSameAsAFullDerivation(store, p);
  }

  @Test
  void drainsLoadsAndPlansAreInputsToo() throws Exception {
    SnapshotStore store = Fixtures.store(SERVICES);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    ClientInfo eu = client("10.1.0.0", 24);
    Decision first = p.plan("prio.example.com.", AddressFamily.V4, eu);
    assertEquals(List.of("eu1"), first.pools());

    store.update(s -> s.withTraffic(s.traffic().withDrained(Set.of("eu1"))));
    Decision drained = p.plan("prio.example.com.", AddressFamily.V4, eu);
    assertEquals(List.of("us1"), drained.pools());
    assertNotSame(first, drained);
    assertSameAsAFullDerivation(store, p);

    store.update(s -> s.withTraffic(s.traffic().withDrained(Set.of())));
    assertEquals(List.of("eu1"), p.plan("prio.example.com.", AddressFamily.V4, eu).pools());

    long before = p.derivedStates();
    store.update(s -> s.withHealth(s.health().withPoolLoads(Map.of("ap1", 100.0))));
    assertEquals(1, p.derivedStates() - before, "the one service of ap1");
    store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        "prio.example.com.",
                        s.traffic().plan("prio.example.com.").withTtlOverride(7L))));
    assertEquals(7, p.plan("prio.example.com.", AddressFamily.V4, eu).ttl());
    assertSameAsAFullDerivation(store, p);
  }

  @Test
  void theStateIsDerivedBeforeTheSnapshotIsPublished() throws Exception {
    SnapshotStore store = Fixtures.store(SERVICES);
    List<Long> seenByListener = new ArrayList<>();
    PolicyPlanner[] planner = new PolicyPlanner[1];
    Map<Long, List<String>> answered = new HashMap<>();
    // Registered before the planner's own listener, so it runs first: as a query that comes
    // between the swap and the planner's listener would.
    store.addListener(
        s -> {
          if (planner[0] != null) {
            long before = planner[0].derivedStates();
            answered.put(
                s.version(),
                planner[0].plan("prio.example.com.", AddressFamily.V4, clientEu()).pools());
            seenByListener.add(planner[0].derivedStates() - before);
          }
        });
    planner[0] = new PolicyPlanner(store, GslbMetrics.NOOP);
    long before = planner[0].derivedStates();
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    Fixtures.setVerdict(store, "eu1/2001:db8::1", Verdict.DOWN);
    assertEquals(List.of(0L, 0L), seenByListener, "no query derived a state");
    assertTrue(planner[0].derivedStates() - before >= 2, "derived while preparing");
    assertEquals(List.of("us1"), answered.get(store.current().version()));
  }

  private static ClientInfo clientEu() {
    try {
      return client("10.1.0.0", 24);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every service, family and region decides as a planner that derives all afresh. */
  private static void assertSameAsAFullDerivation(SnapshotStore store, PolicyPlanner p)
      throws Exception {
    PolicyPlanner fresh = new PolicyPlanner(new SnapshotStore(store.current()), GslbMetrics.NOOP);
    for (String service : List.of("prio", "lat", "ap", "e0", "u0")) {
      for (AddressFamily f : AddressFamily.values()) {
        for (String c : List.of("10.1.0.0", "10.2.0.0", "10.3.0.0", "192.0.2.0")) {
          String name = service + ".example.com.";
          Decision a = p.plan(name, f, client(c, 24));
          Decision b = fresh.plan(name, f, client(c, 24));
          assertEquals(b.outcome(), a.outcome(), name + " " + f + " " + c);
          assertEquals(b.pools(), a.pools(), name + " " + f + " " + c);
          assertEquals(b.ttl(), a.ttl(), name + " " + f + " " + c);
        }
      }
    }
  }

  /** Every endpoint of eu1 and us1 UP with these latencies, after {@code results} results each. */
  private static HealthView latencies(HealthView h, double eu, double us, long results) {
    Map<String, EndpointHealth> all = new HashMap<>();
    for (String key : KEYS) {
      double ms = key.startsWith("eu1") ? eu : us;
      all.put(
          key, new EndpointHealth(Verdict.UP, 0, "ok", false, ms, ms * 2, 0, results, 0, Map.of()));
    }
    return h.withAll(all);
  }
}
