package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.testing.ManualTicker;
import io.sluice.dns.zone.ZoneCompiler;
import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Which responses share a bucket: IPv6 clients by their /56 (the sockets of the other tests are
 * IPv4 only), wildcard answers per zone, and errors per client network whatever the name.
 */
class ResponseRateLimitTest {
  @TempDir Path dir;

  private Responder responder(String rrl) throws Exception {
    String yaml =
        """
        dns: { rrl: { enabled: true, slip: 0, %s } }
        stateDir: state
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1 }
            ns: [ns1.example.test.]
            records:
              - { name: www, type: A, data: 192.0.2.80 }
              - { name: "*.apps", type: A, data: 192.0.2.90 }
        """
            .formatted(rrl);
    SluiceConfig config = ConfigLoader.parse(yaml, "t.yaml", dir);
    ServedZones zones =
        ServedZones.build(ZoneCompiler.compile(config, "t"), ResponderSettings.of(config, "t"));
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    return new Responder(
        store, zones, new AllEndpointsPlanner(store), GslbMetrics.NOOP, new ManualTicker());
  }

  private static byte[] send(Responder r, String name, String client) throws Exception {
    byte[] q =
        Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)).toWire();
    return r.respond(q, q.length, InetAddress.getByName(client), Transport.UDP);
  }

  @Test
  void ipv6ClientsShareTheBucketOfTheirSlash56() throws Exception {
    Responder r = responder("responsesPerSecond: 2");
    assertNotNull(send(r, "www.example.test.", "2001:db8:0:1::1"));
    assertNotNull(send(r, "www.example.test.", "2001:db8:0:ff::2"));
    // Same /56, bucket spent.
    assertNull(send(r, "www.example.test.", "2001:db8:0:20::3"));
    // Another /56 has its own.
    assertNotNull(send(r, "www.example.test.", "2001:db8:0:100::1"));
    // So has another /24 for IPv4, and the same /24 shares.
    assertNotNull(send(r, "www.example.test.", "192.0.2.1"));
    assertNotNull(send(r, "www.example.test.", "192.0.2.200"));
    assertNull(send(r, "www.example.test.", "192.0.2.77"));
    assertNotNull(send(r, "www.example.test.", "192.0.3.1"));
  }

  @Test
  void wildcardAnswersShareTheZonesBucketSoRandomNamesGetNoBudgetEach() throws Exception {
    Responder r = responder("responsesPerSecond: 2");
    assertNotNull(send(r, "a1.apps.example.test.", "192.0.2.1"));
    assertNotNull(send(r, "b2.apps.example.test.", "192.0.2.1"));
    assertNull(send(r, "c3.apps.example.test.", "192.0.2.1"));
    // The zone's own names keep a bucket each.
    assertNotNull(send(r, "www.example.test.", "192.0.2.1"));
  }

  @Test
  void errorsShareOneBucketPerClientNetworkAndPrefixesAreConfigurable() throws Exception {
    Responder r = responder("errorsPerSecond: 2, ipv6PrefixLength: 64, ipv4PrefixLength: 32");
    // REFUSED for names in no zone: one budget, whatever the name.
    assertNotNull(send(r, "a.example.org.", "2001:db8::1"));
    assertNotNull(send(r, "b.example.net.", "2001:db8::2"));
    assertNull(send(r, "c.example.com.", "2001:db8::3"));
    assertNotNull(send(r, "c.example.com.", "2001:db8:0:1::3"));
    assertNotNull(send(r, "a.example.org.", "192.0.2.1"));
    assertNotNull(send(r, "a.example.org.", "192.0.2.1"));
    assertNull(send(r, "a.example.org.", "192.0.2.1"));
    assertNotNull(send(r, "a.example.org.", "192.0.2.2"));
    // Answers are counted apart from errors.
    assertEquals(0, send(r, "www.example.test.", "192.0.2.1")[3] & 0x0f);
  }
}
