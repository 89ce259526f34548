package io.sluice.policy.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.Cidr;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Prefix lookups against the MaxMind test database and explicit maps, checked by brute force. */
class ClientTopologyTest {
  static final Path GEO = GeoIpTestData.dir();
  static final Map<String, Integer> REGIONS = Map.of("eu", 0, "us", 1, "ap", 2, "gb", 3);

  static final Map<String, Integer> CONTINENTS = Map.of("EU", 0, "NA", 1, "AS", 2);

  record Net(Cidr cidr, int region, RegionSource source) {
    /** Comparable text of a network (Cidr holds an array). */
    static String key(Cidr c) {
      return java.util.Arrays.toString(c.address()) + "/" + c.prefix();
    }
  }

  static List<Net> reference = new ArrayList<>();
  static ClientTopology topo;
  static SluiceConfig config;

  @BeforeAll
  static void build() throws Exception {
    String yaml =
        """
        regions: { eu: {}, us: {}, ap: {}, gb: {} }
        topology:
          defaultRegion: us
          networks:
            - { cidr: 81.2.69.0/24, region: ap }
            - { cidr: 10.0.0.0/8, region: eu }
            - { cidr: 10.1.0.0/16, region: ap }
            - { cidr: "2001:250::/32", region: eu }
          geoip:
            database: %s
            rules:
              - { continent: EU, region: eu }
              - { continent: NA, region: us }
              - { continent: AS, region: ap }
              - { country: GB, region: gb }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
        """
            .formatted(GEO.resolve("GeoLite2-Country-Test.mmdb").toAbsolutePath());
    SluiceConfig c = ConfigLoader.parse(yaml, "t.yaml", Path.of("."));
    config = c;
    Map<String, Integer> idx = new HashMap<>();
    idx.put("eu", 0);
    idx.put("us", 1);
    idx.put("ap", 2);
    idx.put("gb", 3);
    topo = ClientTopology.build(c, idx);
    for (String line : Files.readAllLines(GEO.resolve("GeoLite2-Country-Test.networks.csv"))) {
      String[] f = line.split(",");
      if (f[0].equals("network")) {
        continue;
      }
      Integer region = f[1].equals("GB") ? Integer.valueOf(3) : CONTINENTS.get(f[2]);
      if (region != null) {
        reference.add(new Net(Cidr.parse(f[0]), region, RegionSource.GEOIP));
      }
    }
  }

  static boolean contains(Cidr c, byte[] a) {
    if (c.address().length != a.length) {
      return false;
    }
    for (int b = 0; b < c.prefix(); b++) {
      int m = 0x80 >>> (b & 7);
      if ((c.address()[b >>> 3] & m) != (a[b >>> 3] & m)) {
        return false;
      }
    }
    return true;
  }

  static final List<Net> EXPLICIT =
      List.of(
          new Net(Cidr.parse("81.2.69.0/24"), 2, RegionSource.NETWORK_MAP),
          new Net(Cidr.parse("10.0.0.0/8"), 0, RegionSource.NETWORK_MAP),
          new Net(Cidr.parse("10.1.0.0/16"), 2, RegionSource.NETWORK_MAP),
          new Net(Cidr.parse("2001:250::/32"), 0, RegionSource.NETWORK_MAP));

  /** Brute force: longest explicit match, else longest database match, else the default. */
  static Net expected(byte[] a) {
    Net best = null;
    for (Net n : EXPLICIT) {
      if (contains(n.cidr(), a) && (best == null || n.cidr().prefix() > best.cidr().prefix())) {
        best = n;
      }
    }
    if (best != null) {
      return best;
    }
    for (Net n : reference) {
      if (contains(n.cidr(), a) && (best == null || n.cidr().prefix() > best.cidr().prefix())) {
        best = n;
      }
    }
    return best != null ? best : new Net(null, 1, RegionSource.DEFAULT);
  }

  @Test
  void knownAddressesMapByRuleAndOperatorMapsWin() throws Exception {
    assertEquals(1, region("216.160.83.56")); // US -> NA -> us
    assertEquals(0, region("2001:250::1"));
    assertEquals(2, region("67.43.156.1")); // BT -> AS -> ap
    assertEquals(2, region("81.2.69.142")); // GB in the database, mapped to ap by the operator
    assertEquals(3, region("2.125.160.217")); // GB: the country rule beats the continent rule
    assertEquals(2, region("10.1.2.3")); // longest explicit prefix wins
    assertEquals(0, region("10.2.2.3"));
    assertEquals(RegionSource.DEFAULT, ClientTopology.source(topo.locate(addr("192.0.2.1"))));
  }

  @Test
  void theDatabaseSamplesAFewNetworksOfEveryRegionItMaps() throws Exception {
    Map<Integer, List<Cidr>> samples = topo.geoIpSamples();
    // Every region some rule maps database networks to has samples, at most 8, all distinct.
    Set<Integer> mapped = new HashSet<>();
    reference.forEach(n -> mapped.add(n.region()));
    assertEquals(mapped, samples.keySet());
    for (Map.Entry<Integer, List<Cidr>> e : samples.entrySet()) {
      List<Cidr> nets = e.getValue();
      assertTrue(!nets.isEmpty() && nets.size() <= 8, e.toString());
      assertEquals(nets.size(), new HashSet<>(nets.stream().map(Net::key).toList()).size());
      for (Cidr c : nets) {
        // Each is a database network of that region.
        assertTrue(
            reference.stream()
                .anyMatch(
                    n ->
                        n.region() == e.getKey()
                            && n.cidr().prefix() == c.prefix()
                            && java.util.Arrays.equals(n.cidr().address(), c.address())),
            Net.key(c));
      }
    }
    // The same database and rules sample the same networks.
    Map<String, Integer> idx = new HashMap<>(REGIONS);
    ClientTopology again = ClientTopology.build(config, idx);
    samples.forEach(
        (r, nets) ->
            assertEquals(
                nets.stream().map(Net::key).toList(),
                again.geoIpSamples().get(r).stream().map(Net::key).toList()));
  }

  static byte[] addr(String s) throws Exception {
    return java.net.InetAddress.getByName(s).getAddress();
  }

  static int region(String s) throws Exception {
    return ClientTopology.region(topo.locate(addr(s)));
  }

  @Test
  void everyDatabaseNetworkAndRandomAddressesMatchTheBruteForceAnswer() throws Exception {
    Random rnd = new Random(99);
    List<byte[]> probes = new ArrayList<>();
    for (Net n : reference) {
      byte[] first = n.cidr().address().clone();
      probes.add(first);
      byte[] last = first.clone();
      for (int b = n.cidr().prefix(); b < last.length * 8; b++) {
        last[b >>> 3] |= (byte) (0x80 >>> (b & 7));
      }
      probes.add(last);
    }
    for (int i = 0; i < 20_000; i++) {
      byte[] a = new byte[rnd.nextBoolean() ? 4 : 16];
      rnd.nextBytes(a);
      probes.add(a);
    }
    for (byte[] a : probes) {
      long got = topo.locate(a);
      Net want = expected(a);
      assertEquals(want.region(), ClientTopology.region(got), () -> java.util.Arrays.toString(a));
      assertEquals(want.source(), ClientTopology.source(got));
      // The leaf's prefix holds one value: its first and last addresses agree with the reference.
      int depth = ClientTopology.depth(got);
      byte[] lo = Cidr.parse(cidrOf(a, depth)).address();
      byte[] hi = lo.clone();
      for (int b = depth; b < hi.length * 8; b++) {
        hi[b >>> 3] |= (byte) (0x80 >>> (b & 7));
      }
      assertEquals(want.region(), expected(lo).region());
      assertEquals(want.region(), expected(hi).region());
    }
  }

  @Test
  void scopeWidensToWholeRegionClasses() throws Exception {
    // 10.2.0.0 is eu by the operator's /8; around it eu holds up to 10.2.0.0/15 (10.1/16 is ap).
    assertEquals(15, ClientTopology.depth(topo.locate(addr("10.2.0.0"))));
    // When eu and ap clients get the same answer, the whole 10/8 is one scope.
    assertEquals(8, topo.scope(addr("10.2.0.0"), 0b101));
    // When every region gets the same answer, the scope is /0.
    assertEquals(0, topo.scope(addr("10.2.0.0"), 0b11111));
    assertTrue(topo.sizes()[0] > 0);
  }

  static String cidrOf(byte[] a, int prefix) throws Exception {
    byte[] m = io.sluice.core.spi.ClientInfo.mask(a, prefix);
    return java.net.InetAddress.getByAddress(m).getHostAddress() + "/" + prefix;
  }
}
