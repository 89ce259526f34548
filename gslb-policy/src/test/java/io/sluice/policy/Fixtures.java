package io.sluice.policy;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Random;

/** Shared test configuration: three regions, three pools per region, one zone. */
public final class Fixtures {
  private Fixtures() {}

  public static final String BASE =
      """
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us, ap] }
        us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu, ap] }
        ap: { location: { lat: 22.3, lon: 114.2 } }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: 10.2.0.0/16, region: us }
          - { cidr: 10.3.0.0/16, region: ap }
          - { cidr: "2001:db8:1::/48", region: eu }
        residency:
          eu-only: { regions: [eu], pools: [eu1, eu2, eu3] }
      pools:
        eu1: { region: eu, capacity: 1000, endpoints: [{ address: 192.0.2.1 }, { address: "2001:db8::1" }] }
        eu2: { region: eu, capacity: 1000, endpoints: [{ address: 192.0.2.2 }] }
        eu3: { region: eu, capacity: 1000, endpoints: [{ address: 192.0.2.3 }] }
        us1: { region: us, capacity: 1000, endpoints: [{ address: 198.51.100.1 }, { address: "2001:db8::2" }] }
        us2: { region: us, capacity: 1000, endpoints: [{ address: 198.51.100.2 }] }
        us3: { region: us, capacity: 1000, endpoints: [{ address: 198.51.100.3 }] }
        ap1: { region: ap, capacity: 500, endpoints: [{ address: 203.0.113.1 }] }
        ap2: { region: ap, capacity: 500, endpoints: [{ address: 203.0.113.2 }] }
        ap3: { region: ap, capacity: 500, endpoints: [{ address: 203.0.113.3 }] }
        mx1: { region: us, endpoints: [{ address: 100.64.1.1 }, { address: 100.64.1.2 }, { address: 100.64.1.3 }, { address: 100.64.1.4 }] }
        mx2: { region: us, endpoints: [{ address: 100.64.2.1 }, { address: 100.64.2.2 }, { address: 100.64.2.3 }, { address: 100.64.2.4 }] }
        mx3: { region: us, endpoints: [{ address: 100.64.3.1 }, { address: 100.64.3.2 }, { address: 100.64.3.3 }, { address: 100.64.3.4 }] }
      zones:
        - origin: example.com.
          soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
          ns: [ns1.example.com.]
          services:
      """;

  public static final String ALL_POOLS = "[eu1, eu2, eu3, us1, us2, us3, ap1, ap2, ap3]";

  /** The base configuration with {@code services} (YAML list items, indented 6) appended. */
  public static SluiceConfig config(String services) throws Exception {
    return ConfigLoader.parse(BASE + services, "test.yaml", Path.of("."));
  }

  public static SnapshotStore store(String services) throws Exception {
    return new SnapshotStore(Snapshot.initial(config(services)));
  }

  public static ClientInfo client(String address, int prefix) throws Exception {
    return ClientInfo.ofSubnet(InetAddress.getByName(address).getAddress(), prefix);
  }

  /** A random IPv4 /24 client. */
  public static ClientInfo randomV4(Random rnd) {
    byte[] a = new byte[4];
    rnd.nextBytes(a);
    return ClientInfo.ofSubnet(a, 24);
  }

  public static void setVerdict(SnapshotStore store, String key, Verdict v) {
    store.update(s -> s.withHealth(s.health().with(key, EndpointHealth.of(v, 0, "test"))));
  }
}
