package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.core.testing.LoopbackPorts;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real secondary: Knot ({@code knotd}) on loopback transfers a zone from Sluice with TSIG, gets
 * NOTIFY on a reload and follows it by IXFR, and a Knot asking with a key Sluice does not know gets
 * nothing. Needs {@code knotd} (Debian package {@code knot}); without it the test is skipped with a
 * reason, except under {@code CI=true}, where it fails.
 */
class KnotSecondaryTest {
  private static final String ZONE = "xfr.test.";
  private static final String DENIED = "denied.test.";

  @TempDir Path dir;
  private Process knot;
  private int knotPort;
  private TestServer sluice;
  private final TransferEvents events = new TransferEvents();

  private String missing;

  @BeforeEach
  void start() throws Exception {
    String knotd = Knotd.find();
    if (knotd == null) {
      String reason = "knotd (Debian package 'knot') is not installed: no real secondary to test";
      if ("true".equals(System.getenv("CI"))) {
        fail(reason + "; CI=true, so this is a failure, not a skip");
      }
      missing = reason;
      System.err.println("SKIPPED KnotSecondaryTest: " + reason);
      return;
    }
    knotPort = LoopbackPorts.reserve();
    sluice = TestServer.start(sluiceYaml("", 1), dir, events);
    String secret = Files.readString(dir.resolve("state/tsig-xfr-key.key")).strip();
    Path conf = dir.resolve("knot.conf");
    Files.writeString(
        conf,
        """
        server:
          listen: 127.0.0.1@%d
          rundir: %s
          pidfile: %s/knot.pid
        database:
          storage: %s/db
        log:
          - target: stderr
            any: info
        key:
          - id: xfr-key
            algorithm: hmac-sha256
            secret: %s
          - id: stranger
            algorithm: hmac-sha256
            secret: %s
        remote:
          - id: sluice
            address: 127.0.0.1@%d
            key: xfr-key
          - id: sluice-stranger
            address: 127.0.0.1@%d
            key: stranger
        acl:
          - id: notify-from-sluice
            address: 127.0.0.1
            key: xfr-key
            action: notify
        zone:
          - domain: %s
            storage: %s
            master: sluice
            acl: notify-from-sluice
            zonefile-sync: -1
            zonefile-load: none
            journal-content: changes
          - domain: %s
            storage: %s
            master: sluice-stranger
            zonefile-sync: -1
            zonefile-load: none
        """
            .formatted(
                knotPort,
                dir,
                dir,
                dir,
                secret,
                secret,
                sluice.port(),
                sluice.port(),
                ZONE,
                dir,
                DENIED,
                dir));
    knot =
        new ProcessBuilder(knotd, "-c", conf.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("knotd.log").toFile())
            .start();
  }

  private String sluiceYaml(String extra, long serial) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        stateDir: %s
        pools:
          p1: { region: r1, endpoints: [{ name: a, address: 192.0.2.1 }] }
        regions: { r1: {} }
        topology: { defaultRegion: r1 }
        zones:
          - origin: %s
            soa: { mname: ns1.xfr.test., rname: h.xfr.test., serial: %d, refresh: 3600 }
            ns: [ns1.xfr.test.]
            transfer:
              allow: [127.0.0.1]
              tsig: { name: xfr-key }
              notify: ["127.0.0.1:%d"]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: www, type: A, data: 192.0.2.80 }
        %s
            services:
              - name: app
                pools: [p1]
                fallback: [192.0.2.99]
          - origin: %s
            soa: { mname: ns1.xfr.test., rname: h.xfr.test., serial: 1 }
            ns: [ns1.xfr.test.]
            transfer: { tsig: { name: xfr-key } }
        """
        .formatted(dir.resolve("state"), ZONE, serial, knotPort, extra, DENIED);
  }

  @AfterEach
  void stop() throws Exception {
    if (knot != null) {
      knot.destroy();
      if (!knot.waitFor(10, TimeUnit.SECONDS)) {
        knot.destroyForcibly();
      }
    }
    if (sluice != null) {
      sluice.close();
    }
  }

  @Test
  void knotTransfersGetsNotifyFollowsByIxfrAndAWrongKeyGetsNothing() throws Exception {
    Assumptions.assumeTrue(missing == null, () -> missing);
    // The first transfer: Knot serves the zone, the service as its fallback.
    Message soa = await(ZONE, Type.SOA, m -> serial(m) == 1);
    assertTrue(soa.getHeader().getFlag(org.xbill.DNS.Flags.AA));
    assertEquals(List.of("192.0.2.99"), addresses(askKnot("app." + ZONE, Type.A)));
    assertEquals(List.of("192.0.2.80"), addresses(askKnot("www." + ZONE, Type.A)));

    // A reload changes one record and adds one: serial 2, NOTIFY, and Knot follows by IXFR.
    sluice.reload(
        sluiceYaml("      - { name: new, type: A, data: 192.0.2.7 }", 1)
            .replace("data: 192.0.2.80", "data: 192.0.2.81"),
        dir);
    await(ZONE, Type.SOA, m -> serial(m) == 2);
    assertEquals(List.of("192.0.2.7"), addresses(askKnot("new." + ZONE, Type.A)));
    assertEquals(List.of("192.0.2.81"), addresses(askKnot("www." + ZONE, Type.A)));
    events.await("xfr.test. IXFR INCREMENTAL");
    events.await("xfr.test. NOTIFY answered");
    String log = Files.readString(dir.resolve("knotd.log"));
    assertTrue(log.contains("IXFR, incoming"), log);

    // Knot asking with a key Sluice does not know is refused with BADKEY and never loads the zone.
    events.await("denied.test. AXFR NOTAUTH");
    Message denied = askKnot(DENIED, Type.SOA);
    assertTrue(denied.getRcode() != Rcode.NOERROR, denied.toString());
  }

  private Message await(String name, int type, Predicate<Message> ok) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Message last = null;
    while (System.nanoTime() < deadline) {
      if (!knot.isAlive()) {
        break;
      }
      try {
        last = askKnot(name, type);
        if (last.getRcode() == Rcode.NOERROR && ok.test(last)) {
          return last;
        }
      } catch (java.io.IOException e) {
        // Knot is still starting.
      }
      Thread.sleep(100);
    }
    fail(
        "Knot never served the expected "
            + name
            + "; last answer "
            + last
            + "\nknotd.log:\n"
            + Files.readString(dir.resolve("knotd.log"))
            + "\nevents: "
            + events);
    return null;
  }

  private Message askKnot(String name, int type) throws Exception {
    SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", knotPort));
    r.setTimeout(Duration.ofSeconds(2));
    return r.send(Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN)));
  }

  private static long serial(Message m) {
    for (Record r : m.getSection(Section.ANSWER)) {
      if (r instanceof SOARecord s) {
        return s.getSerial();
      }
    }
    return -1;
  }

  private static List<String> addresses(Message m) {
    List<String> out = new ArrayList<>();
    for (Record r : m.getSection(Section.ANSWER)) {
      out.add(r.rdataToString());
    }
    return out;
  }
}
