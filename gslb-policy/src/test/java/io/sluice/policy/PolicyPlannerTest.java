package io.sluice.policy;

import static io.sluice.policy.Fixtures.client;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.SnapshotStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PolicyPlannerTest {
  static final String GEO =
      """
            - name: geo
              pools: [eu1, us1, ap1]
              chain: [healthy, geo]
      """;
  static final String GEO_AND_PRIO =
      GEO
          + """
            - name: prio
              pools: [eu1, us1]
              chain: [healthy, priority]
      """;

  @Test
  void geoAnswerFollowsTheEcsSubnet() throws Exception {
    PolicyPlanner p = new PolicyPlanner(Fixtures.store(GEO), GslbMetrics.NOOP);
    assertEquals(
        List.of("eu1"),
        p.plan("geo.example.com.", AddressFamily.V4, client("10.1.2.0", 24)).pools());
    assertEquals(
        List.of("us1"),
        p.plan("geo.example.com.", AddressFamily.V4, client("10.2.2.0", 24)).pools());
    assertEquals(
        List.of("ap1"),
        p.plan("geo.example.com.", AddressFamily.V4, client("10.3.2.0", 24)).pools());
    // Unmapped: the default region.
    assertEquals(
        List.of("us1"),
        p.plan("geo.example.com.", AddressFamily.V4, client("172.16.0.0", 24)).pools());
  }

  @Test
  void downPoolDisappearsOnTheNextQueryAndNearestRegionTakesOver() throws Exception {
    SnapshotStore store = Fixtures.store(GEO);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var eu = client("10.1.2.0", 24);
    assertEquals(List.of("eu1"), p.plan("geo.example.com.", AddressFamily.V4, eu).pools());
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    // eu's proximity list puts us next.
    assertEquals(List.of("us1"), p.plan("geo.example.com.", AddressFamily.V4, eu).pools());
    // ap has no proximity list: nearest by distance from Hong Kong is... us (eu is down anyway).
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.UP);
    assertEquals(List.of("eu1"), p.plan("geo.example.com.", AddressFamily.V4, eu).pools());
  }

  @Test
  void aDetachedPlannerFollowsItsOwnStoreForTheServicesItIsAskedAbout() throws Exception {
    SnapshotStore store = Fixtures.store(GEO_AND_PRIO);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    SnapshotStore own = new SnapshotStore(store.current());
    var d = p.detached(own, GslbMetrics.NOOP, Set.of("geo.example.com."));
    var eu = client("10.1.2.0", 24);
    assertEquals(List.of("eu1"), d.plan("geo.example.com.", AddressFamily.V4, eu).pools());
    Fixtures.setVerdict(own, "eu1/192.0.2.1", Verdict.DOWN);
    assertEquals(List.of("us1"), d.plan("geo.example.com.", AddressFamily.V4, eu).pools());
    // Its state is derived only for the services it is asked about.
    assertEquals(
        Decision.Outcome.UNKNOWN_SERVICE,
        d.plan("prio.example.com.", AddressFamily.V4, eu).outcome());
    // The serving planner and its store saw nothing.
    assertEquals(List.of("eu1"), p.plan("geo.example.com.", AddressFamily.V4, eu).pools());
    assertEquals(List.of("eu1"), p.plan("prio.example.com.", AddressFamily.V4, eu).pools());
  }

  @Test
  void sameDecisionInstanceWithinASnapshotAndANewOneAfterAChange() throws Exception {
    SnapshotStore store = Fixtures.store(GEO);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Decision a = p.plan("geo.example.com.", AddressFamily.V4, client("10.1.2.0", 24));
    Decision b = p.plan("geo.example.com.", AddressFamily.V4, client("10.1.77.0", 24));
    assertSame(a, b);
    store.update(
        s ->
            s.withTraffic(s.traffic().withDrained(Set.of()))
                .withHealth(s.health().withAll(Map.of())));
    Decision c = p.plan("geo.example.com.", AddressFamily.V4, client("10.1.2.0", 24));
    assertEquals(a, c);
  }

  @Test
  void ecsScopeIsTheWidestPrefixWithTheSameAnswer() throws Exception {
    PolicyPlanner p = new PolicyPlanner(Fixtures.store(GEO_AND_PRIO), GslbMetrics.NOOP);
    // 10.1.0.0/16 is the eu network: the answer holds over exactly that /16.
    assertEquals(
        16, p.plan("geo.example.com.", AddressFamily.V4, client("10.1.2.0", 24)).scopePrefix());
    // 10.2.0.0/16 (us) sits inside the default (us) space, next to eu's 10.1/16 and ap's 10.3/16:
    // the widest prefix around 10.2.0.0 holding only us is 10.2.0.0/16 (10.3/16 is ap next door).
    assertEquals(
        16, p.plan("geo.example.com.", AddressFamily.V4, client("10.2.9.0", 24)).scopePrefix());
    // 10.4.0.0 is default (us): 10.4.0.0/14 holds only default space.
    assertEquals(
        14, p.plan("geo.example.com.", AddressFamily.V4, client("10.4.0.0", 24)).scopePrefix());
    // A priority chain does not depend on the client at all.
    assertEquals(
        0, p.plan("prio.example.com.", AddressFamily.V4, client("10.1.2.0", 24)).scopePrefix());
  }

  @Test
  void hashDependentAnswersScopeAtLeastTheHashedPrefix() throws Exception {
    PolicyPlanner p =
        new PolicyPlanner(
            Fixtures.store(
                """
            - name: w
              pools: [us1, us2, us3]
              chain: [healthy, weighted]
      """),
            GslbMetrics.NOOP);
    // Every region gets the same pools, so only the client hash matters: /24 for IPv4...
    assertEquals(
        24, p.plan("w.example.com.", AddressFamily.V4, client("10.1.2.0", 24)).scopePrefix());
    // ...the ECS prefix when it is shorter...
    assertEquals(
        16, p.plan("w.example.com.", AddressFamily.V4, client("10.1.0.0", 16)).scopePrefix());
    // ...and /56 for IPv6, or a shorter source prefix.
    assertEquals(
        56, p.plan("w.example.com.", AddressFamily.V4, client("2001:db8:5::", 64)).scopePrefix());
    assertEquals(
        48, p.plan("w.example.com.", AddressFamily.V4, client("2001:db8:5::", 48)).scopePrefix());
  }

  @Test
  void servfailIsTheDefaultLastResort() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: sf
              pools: [eu2]
              failOpen: false
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Fixtures.setVerdict(store, "eu2/192.0.2.2", Verdict.DOWN);
    assertEquals(
        Decision.Outcome.FAIL,
        p.plan("sf.example.com.", AddressFamily.V4, client("10.1.2.0", 24)).outcome());
  }

  @Test
  void failOpenAnswersFromEveryPoolWhenAllAreDown() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: open
              pools: [eu2, us2]
              chain: [healthy, geo]
            - name: closed
              pools: [eu2, us2]
              chain: [healthy, geo]
              failOpen: false
              lastResort: { action: address, addresses: [192.0.2.99] }
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Fixtures.setVerdict(store, "eu2/192.0.2.2", Verdict.DOWN);
    Fixtures.setVerdict(store, "us2/198.51.100.2", Verdict.DOWN);
    var eu = client("10.1.2.0", 24);
    Decision open = p.plan("open.example.com.", AddressFamily.V4, eu);
    assertEquals(List.of("eu2"), open.pools());
    Decision closed = p.plan("closed.example.com.", AddressFamily.V4, eu);
    assertEquals(Decision.Outcome.ANSWER, closed.outcome());
    assertEquals(List.of(), closed.pools());
    assertEquals(
        "192.0.2.99",
        java.net.InetAddress.getByAddress(closed.addresses().get(0)).getHostAddress());
  }

  @Test
  void residencyIsNeverBrokenEvenWhenAllowedPoolsAreDown() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: eu
              pools: [eu1, us1]
              chain: [healthy, residency(eu-only), geo]
              failOpen: false
              lastResort: { action: empty }
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var eu = client("10.1.2.0", 24);
    // A us client in a bucket the shift would move if it were global.
    var us = client("10.2.0.0", 24);
    for (int i = 1; i < 256 && us.bucket() >= 5000; i++) {
      us = client("10.2." + i + ".0", 24);
    }
    assertTrue(us.bucket() < 5000, "a /24 of 10.2/16 in the lower half of buckets");
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    assertEquals(Decision.Outcome.EMPTY, p.plan("eu.example.com.", AddressFamily.V4, eu).outcome());
    assertEquals(List.of("us1"), p.plan("eu.example.com.", AddressFamily.V4, us).pools());
  }

  @Test
  void shiftMovesOnlyBucketsBelowItsPercentage() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: shift
              pools: [us1, us2]
              chain: [healthy, priority]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        "shift.example.com.",
                        ServicePlan.DEFAULT.withShifts(
                            List.of(new Shift("r1", List.of("us1"), List.of("us2"), 30))))));
    int moved = 0;
    int total = 20_000;
    java.util.Random rnd = new java.util.Random(7);
    for (int i = 0; i < total; i++) {
      var c = Fixtures.randomV4(rnd);
      Decision d = p.plan("shift.example.com.", AddressFamily.V4, c);
      boolean expectMoved = c.bucket() < 3000;
      assertEquals(expectMoved ? List.of("us2") : List.of("us1"), d.pools());
      moved += expectMoved ? 1 : 0;
    }
    assertEquals(0.30, moved / (double) total, 0.02);
  }

  @Test
  void regionScopedShiftMovesOnlyClientsOfThatRegion() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: shift
              pools: [us1, us2]
              chain: [healthy, priority]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        "shift.example.com.",
                        ServicePlan.DEFAULT.withShifts(
                            List.of(new Shift("r1", List.of("us1"), List.of("us2"), 50, "eu"))))));
    java.util.Random rnd = new java.util.Random(11);
    int euMoved = 0;
    int euTotal = 0;
    for (int i = 0; i < 4_000; i++) {
      // Random /24s inside each mapped network, plus unmapped ones (the default region, us).
      String[] nets = {"10.1", "10.2", "10.3", "172.16"};
      String net = nets[i % nets.length];
      var c = client(net + "." + rnd.nextInt(256) + ".0", 24);
      List<String> pools = p.plan("shift.example.com.", AddressFamily.V4, c).pools();
      if (net.equals("10.1")) {
        boolean expectMoved = c.bucket() < 5000;
        assertEquals(expectMoved ? List.of("us2") : List.of("us1"), pools, "eu " + c);
        euMoved += expectMoved ? 1 : 0;
        euTotal++;
      } else {
        assertEquals(List.of("us1"), pools, "clients outside eu are never moved: " + c);
      }
    }
    assertTrue(euMoved > 0 && euMoved < euTotal, "the eu cohort is split: " + euMoved);

    var eu = client("10.1.2.0", 24);
    // A us client in a bucket the shift would move if it were global.
    var us = client("10.2.0.0", 24);
    for (int i = 1; i < 256 && us.bucket() >= 5000; i++) {
      us = client("10.2." + i + ".0", 24);
    }
    assertTrue(us.bucket() < 5000, "a /24 of 10.2/16 in the lower half of buckets");
    // The answer now depends on the region, so no scope may reach past the region's network.
    assertTrue(
        p.plan("shift.example.com.", AddressFamily.V4, eu).scopePrefix() >= 16,
        "scope stays within 10.1.0.0/16");
    DecisionExplainer.Explanation e = p.explain("shift.example.com.", AddressFamily.V4, us);
    DecisionExplainer.Step step =
        e.steps().stream().filter(st -> st.name().equals("shift(r1)")).findFirst().orElse(null);
    assertNotEquals(null, step, e.steps().toString());
    assertTrue(step.note().contains("only clients of region eu"), step.note());
    assertEquals(List.of("us1"), e.decision().pools());
  }

  @Test
  void dualStackServesEachFamilyFromPoolsThatHaveIt() throws Exception {
    PolicyPlanner p =
        new PolicyPlanner(
            Fixtures.store(
                """
            - name: dual
              pools: [eu2, eu1]
              chain: [healthy, priority]
      """),
            GslbMetrics.NOOP);
    var c = client("10.1.2.0", 24);
    assertEquals(List.of("eu2"), p.plan("dual.example.com.", AddressFamily.V4, c).pools());
    // eu2 has no IPv6 endpoint: AAAA comes from eu1.
    Decision v6 = p.plan("dual.example.com.", AddressFamily.V6, c);
    assertEquals(List.of("eu1"), v6.pools());
    assertEquals(16, v6.addresses().get(0).length);
  }

  @Test
  void explainNamesRegionSourceStepsAndBucket() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: web
              pools: [eu1, eu2, us1]
              chain: [healthy, residency(eu-only), geo, weighted]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Fixtures.setVerdict(store, "eu2/192.0.2.2", Verdict.DOWN);
    var c = client("10.1.2.0", 24);
    DecisionExplainer.Explanation e = p.explain("web.example.com.", AddressFamily.V4, c);
    assertEquals("eu", e.region());
    assertTrue(e.regionSource().startsWith("network map"), e.regionSource());
    List<String> names = e.steps().stream().map(DecisionExplainer.Step::name).toList();
    assertEquals(List.of("healthy", "residency(eu-only)", "geo", "weighted"), names);
    DecisionExplainer.Step healthy = e.steps().get(0);
    assertEquals(List.of("eu1", "eu2", "us1"), healthy.in());
    assertEquals(List.of("eu1", "us1"), healthy.out());
    assertTrue(healthy.note().contains("eu2"), healthy.note());
    assertEquals(List.of("eu1"), e.steps().get(1).out());
    assertTrue(
        e.steps().get(3).note().contains("client bucket " + c.bucket()), e.steps().get(3).note());
    assertEquals(List.of("eu1"), e.decision().pools());
    assertNotEquals(null, e.client());
  }

  @Test
  void unknownServiceIsReported() throws Exception {
    PolicyPlanner p = new PolicyPlanner(Fixtures.store(GEO), GslbMetrics.NOOP);
    assertEquals(
        Decision.Outcome.UNKNOWN_SERVICE,
        p.plan("nope.example.com.", AddressFamily.V4, client("10.1.2.0", 24)).outcome());
  }
}
