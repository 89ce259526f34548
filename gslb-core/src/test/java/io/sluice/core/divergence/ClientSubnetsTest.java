package io.sluice.core.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.Cidr;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientSubnetsTest {
  private static final Map<String, List<Cidr>> REGIONS =
      Map.of(
          "us", List.of(Cidr.parse("10.2.0.0/16")),
          "eu", List.of(Cidr.parse("10.1.0.0/16"), Cidr.parse("2001:db8:e0::/48")),
          "ap", List.of(Cidr.parse("203.0.113.0/24")));

  @Test
  void theSameInputsGiveTheSameDistinctSubnets() {
    List<String> a = ClientSubnets.spread(10_000, REGIONS);
    assertEquals(a, ClientSubnets.spread(10_000, REGIONS));
    assertEquals(10_000, new HashSet<>(a).size());
    a.forEach(s -> assertEquals(null, Cidr.problem(s), s));
  }

  @Test
  void everyRegionComesFirstThenBothFamiliesAndTheRegionsInTurn() {
    // Regions in name order, each once, before anything else.
    assertEquals(
        List.of("203.0.113.0/24", "10.1.0.0/24", "10.2.0.0/24"), ClientSubnets.spread(3, REGIONS));
    List<String> s = ClientSubnets.spread(1000, REGIONS);
    long v6 = s.stream().filter(x -> x.contains(":")).count();
    long eu6 = s.stream().filter(x -> x.startsWith("2001:db8:e0:")).count();
    long eu4 = s.stream().filter(x -> x.startsWith("10.1.")).count();
    long ap = s.stream().filter(x -> x.startsWith("203.0.113.")).count();
    assertTrue(v6 > 300, "IPv6 subnets: " + v6);
    assertTrue(eu6 > 50 && eu4 > 50, "eu: " + eu4 + " IPv4, " + eu6 + " IPv6");
    // A /24 region holds one /24: it is asked once, its turns go to the others.
    assertEquals(1, ap);
    assertTrue(s.stream().allMatch(x -> x.endsWith(x.contains(":") ? "/56" : "/24")), "prefixes");
  }

  @Test
  void globalSubnetsSpreadOverTheAddressSpaceAndSkipSpecialNetworks() {
    List<String> s = ClientSubnets.spread(2000, Map.of());
    int[] quarters = new int[4];
    for (String x : s) {
      if (!x.contains(":")) {
        int first = Integer.parseInt(x.substring(0, x.indexOf('.')));
        assertTrue(first != 0 && first != 127 && first < 224, x);
        quarters[first / 64]++;
      } else {
        assertTrue(x.startsWith("2") || x.startsWith("3"), x);
      }
    }
    for (int q = 0; q < 3; q++) {
      assertTrue(quarters[q] > 200, "IPv4 quarter " + q + ": " + quarters[q]);
    }
  }

  @Test
  void ipv6IsWrittenShort() {
    assertEquals("2001:db8::/56", ClientSubnets.format(Cidr.parse("2001:db8::/56").address(), 56));
    assertEquals("::/0", ClientSubnets.format(new byte[16], 0));
    assertEquals(
        "2001:0:0:1::/64", ClientSubnets.format(Cidr.parse("2001:0:0:1::/64").address(), 64));
  }

  @Test
  void atLeastOneSubnetIsAsked() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ClientSubnets.spread(0, REGIONS));
    assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
  }
}
