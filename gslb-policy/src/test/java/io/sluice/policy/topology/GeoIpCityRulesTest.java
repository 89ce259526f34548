package io.sluice.policy.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.policy.PolicyPlanner;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Subdivision rules need a City database; the most specific matching rule wins. */
class GeoIpCityRulesTest {
  static final Path GEO = GeoIpTestData.dir();

  static SluiceConfig config(String database) throws Exception {
    String yaml =
        """
        regions: { wa: {}, us: {}, eu: {} }
        topology:
          geoip:
            database: %s
            rules:
              - { subdivision: US-WA, region: wa }
              - { country: US, region: us }
              - { continent: EU, region: eu }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
        """
            .formatted(database);
    return ConfigLoader.parse(yaml, "t.yaml", Path.of("."));
  }

  @Test
  void subdivisionBeatsCountryBeatsContinent() throws Exception {
    SluiceConfig c = config(GEO.resolve("GeoLite2-City-Test.mmdb").toAbsolutePath().toString());
    ClientTopology t = ClientTopology.build(c, Map.of("wa", 0, "us", 1, "eu", 2));
    assertTrue(t.geoIpNetworks() > 0);
    // 216.160.83.56 is Milton, Washington, US.
    long wa = t.locate(InetAddress.getByName("216.160.83.56").getAddress());
    assertEquals(0, ClientTopology.region(wa));
    assertEquals(RegionSource.GEOIP, ClientTopology.source(wa));
    // 81.2.69.142 is in GB: only the continent rule matches.
    assertEquals(
        2, ClientTopology.region(t.locate(InetAddress.getByName("81.2.69.142").getAddress())));
    // Nothing matches and there is no default region.
    long none = t.locate(InetAddress.getByName("192.0.2.1").getAddress());
    assertEquals(3, ClientTopology.region(none));
    assertEquals(RegionSource.NONE, ClientTopology.source(none));
  }

  @Test
  void aDatabaseThatIsNotMaxMindIsAConfigErrorNamingTheField() throws Exception {
    Path notADb = GEO.resolve("GeoLite2-Country-Test.networks.csv").toAbsolutePath();
    SluiceConfig c = config(notADb.toString());
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> new PolicyPlanner(new SnapshotStore(Snapshot.initial(c)), GslbMetrics.NOOP));
    assertTrue(e.getMessage().contains("topology.geoip.database: cannot load"), e.getMessage());
  }
}
