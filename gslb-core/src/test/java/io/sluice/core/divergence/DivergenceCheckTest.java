package io.sluice.core.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What counts as a difference between two nodes' answers (the wire is tested end to end). */
class DivergenceCheckTest {
  private static final List<DivergenceCheck.Target> NODES =
      List.of(
          DivergenceCheck.Target.parse("ns1", "127.0.0.1:5301"),
          DivergenceCheck.Target.parse("ns2", "127.0.0.1:5302"),
          DivergenceCheck.Target.parse("ns3", "[::1]:5303"));
  private static final Set<Long> TTLS = Set.of(60L, 10L);

  private static NodeAnswer a(long ttl, String... addresses) {
    return NodeAnswer.answered(
        "NOERROR",
        java.util.Arrays.stream(addresses).map(x -> new NodeAnswer.Rr("A", x)).toList(),
        ttl);
  }

  private static DivergenceReport.SubnetResult compare(NodeAnswer... answers) {
    return DivergenceCheck.compare("10.1.0.0/24", NODES, answers, TTLS);
  }

  @Test
  void orderDuplicatesAndTheTwoServiceTtlsAreNotDifferences() {
    assertNull(
        compare(
            a(60, "192.0.2.1", "192.0.2.2"),
            a(60, "192.0.2.2", "192.0.2.1"),
            a(60, "192.0.2.1", "192.0.2.2", "192.0.2.1")));
    // One node has restored the long TTL a moment before the others.
    assertNull(compare(a(60, "192.0.2.1"), a(10, "192.0.2.1"), a(10, "192.0.2.1")));
  }

  @Test
  void otherRecordsRcodesOrTtlsOutsideTheRulesDiffer() {
    DivergenceReport.SubnetResult r =
        compare(a(60, "192.0.2.1"), a(60, "198.51.100.1"), a(60, "192.0.2.1"));
    assertEquals(DivergenceReport.Outcome.DIFFERENT, r.outcome());
    assertEquals(List.of("ns2"), r.differing());

    NodeAnswer servfail = NodeAnswer.answered("SERVFAIL", List.of(), -1);
    assertEquals(
        List.of("ns3"), compare(a(60, "192.0.2.1"), a(60, "192.0.2.1"), servfail).differing());

    // 300 is neither the service TTL nor its shift TTL: a node on another configuration.
    assertEquals(
        List.of("ns1"),
        compare(a(300, "192.0.2.1"), a(60, "192.0.2.1"), a(10, "192.0.2.1")).differing());
    // The same TTL everywhere is no difference, whatever it is.
    assertNull(compare(a(300, "192.0.2.1"), a(300, "192.0.2.1"), a(300, "192.0.2.1")));
    // A type is part of the record: a CNAME is not an A record with the same text.
    NodeAnswer cname =
        NodeAnswer.answered("NOERROR", List.of(new NodeAnswer.Rr("CNAME", "x.")), 60);
    NodeAnswer aX = NodeAnswer.answered("NOERROR", List.of(new NodeAnswer.Rr("A", "x.")), 60);
    assertEquals(DivergenceReport.Outcome.DIFFERENT, compare(cname, cname, aX).outcome());
  }

  @Test
  void aSilentNodeIsReportedApartFromDifferentAnswers() {
    DivergenceReport.SubnetResult r =
        compare(a(60, "192.0.2.1"), NodeAnswer.failed("timed out"), a(60, "192.0.2.1"));
    assertEquals(DivergenceReport.Outcome.UNANSWERED, r.outcome());
    assertEquals(List.of("ns2"), r.differing());
    assertEquals("no answer (timed out)", r.answers().get("ns2").text());
  }

  @Test
  void aTieGoesToTheFirstNodesAnswer() {
    List<DivergenceCheck.Target> two = NODES.subList(0, 2);
    DivergenceReport.SubnetResult r =
        DivergenceCheck.compare(
            "10.1.0.0/24", two, new NodeAnswer[] {a(60, "192.0.2.1"), a(60, "192.0.2.9")}, TTLS);
    assertEquals(List.of("ns2"), r.differing());
  }

  @Test
  void aDeadNodeIsGivenUpOnAfterFiveSilentQueriesInARow() throws Exception {
    java.util.concurrent.atomic.AtomicInteger askedDead =
        new java.util.concurrent.atomic.AtomicInteger();
    DnsAsker asker =
        (host, port, name, type, subnet, timeout) -> {
          if (port == 5302) {
            askedDead.incrementAndGet();
            throw new java.net.SocketTimeoutException("timed out");
          }
          return a(60, "192.0.2.1");
        };
    List<String> subnets = ClientSubnets.spread(100, java.util.Map.of());
    DivergenceReport r =
        DivergenceCheck.over(asker, 1, java.time.Duration.ofSeconds(2))
            .run(NODES, "app.example.com", "A", subnets, TTLS);
    assertEquals(100, r.unanswered());
    assertEquals(0, r.different());
    // Five subnets, each asked twice; the other 95 not at all.
    assertEquals(10, askedDead.get());
    assertEquals("no answer (timed out)", r.findings().get(0).answers().get("ns2").text());
    assertTrue(
        r.findings().get(99).answers().get("ns2").text().contains("not asked"),
        r.findings().get(99).answers().get("ns2").text());
  }

  @Test
  void nodeAddressesAreParsedWithWhatIsWrong() {
    assertEquals("::1", NODES.get(2).host());
    assertEquals("[::1]:5303", NODES.get(2).address());
    for (String bad : List.of("nowhere", "host:0", "host:70000", ":53", "::1:53", "host:x")) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> DivergenceCheck.Target.parse(null, bad), bad);
      assertTrue(e.getMessage().contains("expected HOST:PORT, was '" + bad + "'"), e.getMessage());
    }
  }

  @Test
  void onlyLiveMembersWithADnsAddressAreAsked() {
    var members =
        List.of(
            new io.sluice.core.spi.ClusterMembers.Member(
                "a", "eu", "10.0.0.1:53", null, true, 1, true, 0),
            new io.sluice.core.spi.ClusterMembers.Member(
                "b", "eu", "10.0.0.2:53", null, false, 1, false, 0),
            new io.sluice.core.spi.ClusterMembers.Member("c", "eu", null, null, false, 1, true, 0));
    assertEquals(
        List.of(new DivergenceCheck.Target("a", "10.0.0.1", 53)),
        DivergenceCheck.Target.of(members));
  }
}
