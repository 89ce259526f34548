package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link PolicyPlanner#decisions}: every answer a service can give in a snapshot, whoever asks, so
 * signed zones can sign them all before the snapshot is published.
 */
class PlannerDecisionsTest {
  @Test
  void everyRegionsAnswerIsListedAndFollowsHealth() throws Exception {
    SnapshotStore store = Fixtures.store(PolicyPlannerTest.GEO);
    PolicyPlanner p = new PolicyPlanner(store, GslbMetrics.NOOP);
    Set<List<String>> pools = pools(p, store);
    // Each region's answer (and that of the slot for clients of no region, which may be more).
    assertTrue(
        pools.containsAll(Set.of(List.of("eu1"), List.of("us1"), List.of("ap1"))), pools::toString);
    // Every decision a client gets is among them.
    for (String net : List.of("10.1.2.0", "10.2.2.0", "10.3.2.0", "172.16.0.0")) {
      ClientInfo c = ClientInfo.ofSubnet(InetAddress.getByName(net).getAddress(), 24);
      assertTrue(pools.contains(p.plan("geo.example.com.", AddressFamily.V4, c).pools()));
    }
    Fixtures.setVerdict(store, "eu1/192.0.2.1", Verdict.DOWN);
    Set<List<String>> afterDown = pools(p, store);
    assertTrue(afterDown.contains(List.of("us1")), afterDown::toString);
    assertTrue(afterDown.stream().noneMatch(l -> l.contains("eu1")), afterDown::toString);
    assertEquals(List.of(), p.decisions(store.current(), "nope.example.com.", AddressFamily.V4));
  }

  private static Set<List<String>> pools(PolicyPlanner p, SnapshotStore store) {
    return p.decisions(store.current(), "geo.example.com.", AddressFamily.V4).stream()
        .map(d -> d.pools())
        .collect(Collectors.toSet());
  }
}
