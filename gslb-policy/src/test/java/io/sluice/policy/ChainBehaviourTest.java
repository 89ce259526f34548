package io.sluice.policy;

import static io.sluice.policy.Fixtures.client;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.SnapshotStore;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Steps that read per-snapshot data (RTT, load, TTL overrides) and service-level limits. */
class ChainBehaviourTest {

  @Test
  void latencyPicksTheLowestRttAndFallsBackToGeoWhenStale() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: lat
              pools: [eu1, us1, ap1]
              chain: [healthy, latency]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var eu = client("10.1.0.0", 24);
    // No RTT yet: geo.
    assertEquals(List.of("eu1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
    store.update(
        s ->
            s.withHealth(
                s.health()
                    .withAll(
                        Map.of(
                            "eu1/192.0.2.1", rtt(40),
                            "eu1/2001:db8::1", rtt(40),
                            "us1/198.51.100.1", rtt(12),
                            "us1/2001:db8::2", rtt(12),
                            "ap1/203.0.113.1", rtt(90)))));
    assertEquals(List.of("us1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
    store.update(
        s ->
            s.withHealth(
                s.health()
                    .with(
                        "ap1/203.0.113.1",
                        new EndpointHealth(Verdict.UP, 0, "restored", true, 1, 2, 0))));
    assertEquals(List.of("eu1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
  }

  @Test
  void latencyUsesTheRttMeasuredFromTheClientsRegionWhenAVantageThereHasOne() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: lat
              pools: [eu1, us1]
              chain: [healthy, latency]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var eu = client("10.1.0.0", 24);
    var us = client("10.2.0.0", 24);
    var ap = client("10.3.0.0", 24);
    // This node (in the US) measures us1 closer; a node in the EU measures eu1 closer from there.
    store.update(
        s ->
            s.withHealth(
                s.health()
                    .withAll(
                        Map.of(
                            "eu1/192.0.2.1", rtt(80, Map.of("eu", 3.0, "us", 80.0)),
                            "eu1/2001:db8::1", rtt(80, Map.of("eu", 3.0, "us", 80.0)),
                            "us1/198.51.100.1", rtt(2, Map.of("eu", 75.0, "us", 2.0)),
                            "us1/2001:db8::2", rtt(2, Map.of("eu", 75.0, "us", 2.0))))));
    assertEquals(List.of("eu1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
    assertEquals(List.of("us1"), p.plan("lat.example.com.", AddressFamily.V4, us).pools());
    // No vantage in AP: this node's own figures, as on a single node.
    assertEquals(List.of("us1"), p.plan("lat.example.com.", AddressFamily.V4, ap).pools());
    assertTrue(
        p.explain("lat.example.com.", AddressFamily.V4, eu).toString().contains("lowest RTT 3.0"),
        p.explain("lat.example.com.", AddressFamily.V4, eu).toString());

    // The EU vantage has no figure for us1: EU clients fall back to this node's own RTTs.
    store.update(
        s ->
            s.withHealth(
                s.health()
                    .withAll(
                        Map.of(
                            "us1/198.51.100.1", rtt(2, Map.of("us", 2.0)),
                            "us1/2001:db8::2", rtt(2, Map.of("us", 2.0))))));
    assertEquals(List.of("us1"), p.plan("lat.example.com.", AddressFamily.V4, eu).pools());
  }

  static EndpointHealth rtt(double ms, Map<String, Double> byRegion) {
    return new EndpointHealth(Verdict.UP, 0, "ok", false, ms, ms * 2, 0, 0, 0, byRegion);
  }

  static EndpointHealth rtt(double ms) {
    return new EndpointHealth(Verdict.UP, 0, "ok", false, ms, ms * 2, 0);
  }

  @Test
  void capacityOverflowGoesToTheNearestPoolWithHeadroom() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: cap
              pools: [eu1, us1, ap1]
              chain: [healthy, geo, capacity(80)]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var eu = client("10.1.0.0", 24);
    store.update(s -> s.withHealth(s.health().withPoolLoads(Map.of("eu1", 850.0, "us1", 100.0))));
    assertEquals(List.of("us1"), p.plan("cap.example.com.", AddressFamily.V4, eu).pools());
    store.update(s -> s.withHealth(s.health().withPoolLoads(Map.of("eu1", 790.0))));
    assertEquals(List.of("eu1"), p.plan("cap.example.com.", AddressFamily.V4, eu).pools());
  }

  @Test
  void crossRegionLimitKeepsAllButItsShareOfClientsInRegion() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: x
              pools: [eu1, us1]
              chain: [healthy, hash]
              crossRegionLimit: 10
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Random rnd = new Random(8);
    int out = 0;
    int n = 40_000;
    for (int i = 0; i < n; i++) {
      byte[] a = {10, 1, (byte) rnd.nextInt(256), 0};
      ClientInfo c = ClientInfo.ofSubnet(a, 24);
      List<String> pools = p.plan("x.example.com.", AddressFamily.V4, c).pools();
      if (!pools.equals(List.of("eu1"))) {
        out++;
        assertTrue(c.bucket() < 1000, "bucket " + c.bucket() + " left its region");
      }
    }
    // Of the 10% that may leave, the hash sends about half to us1.
    assertTrue(out <= n * 0.10, "out of region: " + out);
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    assertEquals(
        List.of("us1"), p.plan("x.example.com.", AddressFamily.V4, client("10.1.9.0", 24)).pools());
  }

  @Test
  void limitCapsRecordsAndRotatesOverClients() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: l
              pools: [mx1, mx2]
              chain: [healthy, priority, limit(2)]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    int[] seen = new int[5];
    Random rnd = new Random(4);
    for (int i = 0; i < 4000; i++) {
      Decision d = p.plan("l.example.com.", AddressFamily.V4, Fixtures.randomV4(rnd));
      assertEquals(2, d.addresses().size());
      assertEquals(List.of("mx1"), d.pools());
      for (byte[] a : d.addresses()) {
        seen[a[3]]++;
      }
    }
    for (int e = 1; e <= 4; e++) {
      assertEquals(2000, seen[e], 200, "endpoint " + e);
    }
  }

  @Test
  void ttlOverrideReplacesTheConfiguredTtl() throws Exception {
    SnapshotStore store =
        Fixtures.store(
            """
            - name: t
              ttl: 300
              pools: [eu1]
      """);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    var c = client("10.1.0.0", 24);
    assertEquals(300, p.plan("t.example.com.", AddressFamily.V4, c).ttl());
    store.update(
        s ->
            s.withTraffic(
                s.traffic().withPlan("t.example.com.", ServicePlan.DEFAULT.withTtlOverride(10L))));
    assertEquals(10, p.plan("t.example.com.", AddressFamily.V4, c).ttl());
  }

  @Test
  void queryPathDoesNotAllocateOnceWarm() throws Exception {
    PolicyPlanner p =
        new PolicyPlanner(
            Fixtures.store(
                """
            - name: w
              pools: %s
              chain: [healthy, geo, weighted]
      """
                    .formatted(Fixtures.ALL_POOLS)),
            GslbMetrics.NOOP);
    Random rnd = new Random(1);
    ClientInfo[] clients = new ClientInfo[4096];
    for (int i = 0; i < clients.length; i++) {
      byte[] a = {10, (byte) (1 + rnd.nextInt(3)), (byte) rnd.nextInt(256), 0};
      clients[i] = ClientInfo.ofSubnet(a, 24);
    }
    for (ClientInfo c : clients) {
      p.plan("w.example.com.", AddressFamily.V4, c); // fills the decision caches
    }
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(id);
    int n = 1_000_000;
    long sink = 0;
    for (int i = 0; i < n; i++) {
      sink += p.plan("w.example.com.", AddressFamily.V4, clients[i & 4095]).ttl();
    }
    long allocated = threads.getThreadAllocatedBytes(id) - before;
    assertEquals(60L * n, sink);
    assertTrue(allocated < n / 10, "allocated " + allocated + " bytes over " + n + " decisions");
  }
}
