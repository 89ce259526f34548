package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.DnsQueryLabels;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.SnapshotStore;
import io.sluice.policy.PolicyPlanner;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * The start-up warm-up asks what the query path branches on: every rcode the responder gives
 * (answers, NXDOMAIN, REFUSED, FORMERR, NOTIMP, BADVERS, dropped), both transports, and service
 * answers for clients inside every network of the topology map, so each region's nearest pool is
 * chosen at least once.
 */
class ResponderWarmUpTest {
  private static final String YAML =
      """
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us, ap] }
        us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu, ap] }
        ap: { location: { lat: 22.3, lon: 114.2 }, proximity: [us, eu] }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: 172.20.0.0/14, region: ap }
          - { cidr: 2001:db8:ab::/48, region: ap }
      pools:
        eu-1: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        us-1: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
        ap-1: { region: ap, endpoints: [ { name: a, address: 203.0.113.31 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1 }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
          services:
            - { name: app, ttl: 30, pools: [eu-1, us-1, ap-1], chain: [healthy, geo] }
      """;

  /** What the warm-up's queries did, as the metrics see it. */
  private static final class Seen implements GslbMetrics {
    final Set<Integer> rcodes = ConcurrentHashMap.newKeySet();
    final Set<Integer> qtypes = ConcurrentHashMap.newKeySet();
    final Set<Boolean> transports = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicInteger> nearestPools = new ConcurrentHashMap<>();
    final AtomicInteger queries = new AtomicInteger();

    @Override
    public void dnsQuery(String zone, int qtype, int rcode, boolean tcp, long nanos) {
      queries.incrementAndGet();
      rcodes.add(rcode);
      qtypes.add(qtype);
      transports.add(tcp);
    }

    @Override
    public void dnsQuery(String zone, int qtype, int rcode, boolean tcp, long nanos, long now) {
      dnsQuery(zone, qtype, rcode, tcp, nanos);
    }

    @Override
    public void serviceAnswer(String service, String pool, boolean nearest) {
      if (nearest) {
        nearestPools.computeIfAbsent(pool, p -> new AtomicInteger()).incrementAndGet();
      }
    }
  }

  @Test
  void theWarmUpReachesEveryBranchKindAndEveryMappedRegion() throws Exception {
    SluiceConfig config = ConfigLoader.parse(YAML, "t.yaml", Path.of("."));
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(), PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, "t.yaml"));
    store.update(
        s ->
            s.withHealth(
                s.health()
                    .withAll(
                        Map.of(
                            "eu-1/a", EndpointHealth.of(Verdict.UP, 0, "test"),
                            "us-1/a", EndpointHealth.of(Verdict.UP, 0, "test"),
                            "ap-1/a", EndpointHealth.of(Verdict.UP, 0, "test")))));
    Seen seen = new Seen();
    try (PolicyPlanner planner = new PolicyPlanner(store, seen)) {
      Responder responder = new Responder(store, null, planner, seen);

      ResponderWarmUp.Result r =
          ResponderWarmUp.of(responder, store.current()).run(4000, 60_000_000_000L);

      assertEquals(4000, r.queries());
      assertEquals(4000, seen.queries.get(), "every synthetic query went through the responder");
      for (int rcode :
          new int[] {
            Rcode.NOERROR,
            Rcode.NXDOMAIN,
            Rcode.REFUSED,
            Rcode.FORMERR,
            Rcode.NOTIMP,
            16, // BADVERS
            DnsQueryLabels.DROPPED
          }) {
        assertTrue(seen.rcodes.contains(rcode), "rcode " + rcode + " in " + seen.rcodes);
      }
      for (int qtype : new int[] {Type.A, Type.AAAA, Type.SOA, Type.NS, Type.TXT}) {
        assertTrue(seen.qtypes.contains(qtype), Type.string(qtype) + " in " + seen.qtypes);
      }
      assertEquals(Set.of(true, false), seen.transports, "both transports");
      // eu and ap only through their networks (the default region is us): ECS or client
      // addresses inside the map, of both families for ap.
      assertEquals(Set.of("eu-1", "us-1", "ap-1"), seen.nearestPools.keySet());
    }
  }

  @Test
  void aBudgetStopsTheWarmUpEarly() throws Exception {
    SluiceConfig config = ConfigLoader.parse(YAML, "t.yaml", Path.of("."));
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(), PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, "t.yaml"));
    try (PolicyPlanner planner = new PolicyPlanner(store, GslbMetrics.NOOP)) {
      Responder responder = new Responder(store, null, planner, GslbMetrics.NOOP);
      ResponderWarmUp.Result r = ResponderWarmUp.of(responder, store.current()).run(1_000_000, 0);
      // The budget is checked every 1,024 queries.
      assertEquals(1024, r.queries());
    }
  }
}
