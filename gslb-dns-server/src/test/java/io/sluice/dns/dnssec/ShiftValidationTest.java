package io.sluice.dns.dnssec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.response.ServedZones;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;
import org.xbill.DNS.dnssec.ValidatingResolver;

/**
 * A ramp from one pool to another, its rollback and a reload, while a tight loop asks for the GSLB
 * name through dnsjava's validating resolver as many client subnets: every answer must be secure,
 * and every answer RRset the new snapshots serve is signed before they are published.
 */
class ShiftValidationTest {
  private static final String SERVICE = "app.example.test.";
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      pools:
        east: { endpoints: [ { name: e1, address: 198.51.100.1 }, { name: e2, address: 198.51.100.3 } ] }
        west: { endpoints: [ { name: w1, address: 198.51.100.2 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test., serial: %d }
          ns: [ns1.example.test.]
          dnssec: { enabled: true, keyDirectory: keys }
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - { name: app, ttl: 60, pools: [east, west], chain: [healthy, priority] }
      """;

  @Test
  void everyAnswerStaysSecureThroughRampRollbackAndReload() throws Exception {
    Name origin = Name.fromString("example.test.");
    SigningKey key = TestKeys.csk(origin, DNSSEC.Algorithm.ECDSAP256SHA256);
    try (SignedServer server =
        SignedServer.start(
            CONFIG.formatted(1), TestKeys.source(Map.of(origin, List.of(key))), Ticker.SYSTEM)) {
      List<ValidatingResolver> clients = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        SimpleResolver head = server.plain();
        ValidatingResolver v = new ValidatingResolver(head);
        v.loadTrustAnchors(new java.io.ByteArrayInputStream((key.dnskey() + "\n").getBytes()));
        ClientSubnetOption ecs =
            new ClientSubnetOption(24, InetAddress.getByName("10.0." + (i * 16) + ".0"));
        head.setEDNS(0, 1232, ExtendedFlags.DO, List.of(ecs));
        clients.add(v);
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong answers = new AtomicLong();
      List<String> insecure = new ArrayList<>();
      Set<String> seen = ConcurrentHashMap.newKeySet();
      Thread loop =
          new Thread(
              () -> {
                int i = 0;
                while (!stop.get()) {
                  try {
                    Message m =
                        clients.get(i++ % clients.size()).send(SignedServer.query(SERVICE, Type.A));
                    if (!m.getHeader().getFlag(Flags.AD)) {
                      synchronized (insecure) {
                        insecure.add(m.toString());
                      }
                    }
                    for (Record r : m.getSection(Section.ANSWER)) {
                      if (r.getType() == Type.A) {
                        seen.add(r.rdataToString());
                      }
                    }
                    answers.incrementAndGet();
                  } catch (Exception e) {
                    synchronized (insecure) {
                      insecure.add(e.toString());
                    }
                  }
                }
              });
      loop.start();
      try {
        awaitAnswers(answers, 20);
        long before = signed(server).preparedSignatures();
        for (double step : new double[] {25, 50, 100}) {
          shift(server, step);
          awaitAnswers(answers, 40);
        }
        // The ramp's new answer RRset (west's address) was signed before it was served.
        assertTrue(signed(server).preparedSignatures() > before);
        assertEquals(0, signed(server).onlineSignatures(), "no GSLB answer was signed online");
        rollback(server);
        awaitAnswers(answers, 40);
        server.node.apply(
            ConfigLoader.parse(CONFIG.formatted(2), "test.yaml", Path.of(".")), "test.yaml");
        awaitAnswers(answers, 40);
      } finally {
        stop.set(true);
        loop.join();
      }
      assertEquals(List.of(), insecure);
      assertTrue(seen.containsAll(Set.of("198.51.100.1", "198.51.100.2")), seen.toString());
      // Served with the shift's TTL, signed with the configured one.
      Message m = ValidationTest.rawDo(server, SERVICE, Type.A);
      RRSIGRecord sig = (RRSIGRecord) m.getSection(Section.ANSWER).get(2);
      assertEquals(60, sig.getOrigTTL());
    }
  }

  private static SignedZone signed(SignedServer server) {
    return server.store.current().artifacts().get(ServedZones.class).signed().zones().get(0);
  }

  private static void shift(SignedServer server, double percent) {
    server.store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        SERVICE,
                        ServicePlan.DEFAULT
                            .withShifts(
                                List.of(
                                    new Shift("ramp", List.of("east"), List.of("west"), percent)))
                            .withTtlOverride(5L))));
  }

  private static void rollback(SignedServer server) {
    server.store.update(s -> s.withTraffic(s.traffic().withPlan(SERVICE, ServicePlan.DEFAULT)));
  }

  /** Waits until the loop has seen {@code more} further answers (no clock involved). */
  private static void awaitAnswers(AtomicLong answers, int more) throws InterruptedException {
    long target = answers.get() + more;
    while (answers.get() < target) {
      Thread.sleep(5);
    }
  }
}
