package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.policy.PolicyPlanner;
import io.sluice.server.app.SluiceNode;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * NODATA at a service name carries a SOA no longer-lived than the service's addresses, including
 * the short TTL of a shift, so a resolver drops "no such type" as soon as it drops the addresses.
 * Real planner, real snapshot store, real UDP and TCP.
 */
class ServiceNegativeTtlTest {
  private static final String APP = "app.example.test.";
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      pools:
        v4only: { endpoints: [ { name: a, address: 198.51.100.10 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: hostmaster.example.test., minimum: 300, ttl: 600 }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - { name: app, ttl: 60, pools: [v4only] }
      """;

  private SnapshotStore store;
  private TestServer server;

  @BeforeEach
  void start() throws Exception {
    SluiceConfig config = ConfigLoader.parse(CONFIG, "test.yaml", Path.of("."));
    store = new SnapshotStore(Snapshot.initial(config));
    server =
        new TestServer(
            SluiceNode.start(
                config,
                "test.yaml",
                store,
                new PolicyPlanner(store, GslbMetrics.NOOP),
                GslbMetrics.NOOP));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private void ttlOverride(Long ttl) {
    store.update(
        s -> s.withTraffic(s.traffic().withPlan(APP, s.traffic().plan(APP).withTtlOverride(ttl))));
  }

  /** The negative TTL of a NODATA answer, checked to be NODATA first. */
  private long nodataSoaTtl(String name, int type, boolean tcp) throws Exception {
    Message m = server.query(name, type, tcp);
    assertEquals(Rcode.NOERROR, m.getRcode(), m.toString());
    assertEquals(0, m.getSection(Section.ANSWER).size(), m.toString());
    Record soa = m.getSection(Section.AUTHORITY).get(0);
    assertEquals(Type.SOA, soa.getType(), m.toString());
    return Math.min(soa.getTTL(), ((SOARecord) soa).getMinimum());
  }

  private long addressTtl() throws Exception {
    return server.query(APP, Type.A, false).getSection(Section.ANSWER).get(0).getTTL();
  }

  @Test
  void nodataAtAServiceNameNeverOutlivesItsAddresses() throws Exception {
    assertEquals(60, addressTtl());
    assertEquals(60, nodataSoaTtl(APP, Type.AAAA, false), "capped by the service TTL");
    assertEquals(60, nodataSoaTtl(APP, Type.MX, false));
    assertEquals(300, nodataSoaTtl("ns1.example.test.", Type.AAAA, false), "other names: SOA");

    ttlOverride(10L);
    assertEquals(10, addressTtl());
    assertEquals(10, nodataSoaTtl(APP, Type.AAAA, false), "a shift shortens NODATA too");
    assertEquals(10, nodataSoaTtl(APP, Type.AAAA, true));
    assertEquals(10, nodataSoaTtl(APP, Type.MX, false), "every type the name lacks");
    assertEquals(10, nodataSoaTtl("APP.Example.TEST.", Type.TXT, false), "any case");
    assertEquals(300, nodataSoaTtl("ns1.example.test.", Type.AAAA, false));

    ttlOverride(null);
    assertEquals(60, nodataSoaTtl(APP, Type.AAAA, false), "the long TTL returns after the shift");
    assertEquals(60, nodataSoaTtl(APP, Type.MX, false));
  }

  @Test
  void aShiftTtlAboveTheZonesNegativeTtlLeavesTheSoaAlone() throws Exception {
    ttlOverride(900L);
    assertEquals(900, addressTtl());
    assertEquals(300, nodataSoaTtl(APP, Type.AAAA, false));
    assertEquals(300, nodataSoaTtl(APP, Type.MX, false));
  }
}
