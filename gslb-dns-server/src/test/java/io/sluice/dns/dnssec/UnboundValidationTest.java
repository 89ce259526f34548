package io.sluice.dns.dnssec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.core.spi.Ticker;
import io.sluice.core.testing.LoopbackPorts;
import io.sluice.dns.dnssec.keys.KeyTiming;
import io.sluice.dns.dnssec.keys.SigningKey;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.DSRecord;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Debian's unbound as a validating resolver in front of Sluice (a stub zone on loopback, the zone's
 * DNSKEY as trust anchor), as a resolver on the Internet would see it: static names, a GSLB name
 * for clients of two regions (ECS forwarded by unbound's subnet module), compact denial, a
 * wildcard, a CNAME chain and a signed delegation resolve as secure (AD); signatures that do not
 * match the published key are bogus (SERVFAIL).
 */
class UnboundValidationTest {
  private static final Name ORIGIN = Name.fromConstantString("example.test.");
  private static final Name CHILD = Name.fromConstantString("sec.example.test.");
  private static final Name BAD = Name.fromConstantString("bad.test.");
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      regions: { eu: { proximity: [us] }, us: { proximity: [eu] } }
      topology:
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: 10.2.0.0/16, region: us }
      pools:
        eu-pool: { region: eu, endpoints: [ { name: e1, address: 198.51.100.1 } ] }
        us-pool: { region: us, endpoints: [ { name: u1, address: 198.51.100.2 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test., minimum: 60 }
          ns: [ns1.example.test.]
          dnssec: { enabled: true, keyDirectory: keys }
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
            - { name: c1, type: CNAME, data: c2.example.test. }
            - { name: c2, type: CNAME, data: www.example.test. }
            - { name: "*.apps", type: A, data: 192.0.2.90 }
            - { name: sec, type: NS, data: ns1.sec.example.test. }
            - { name: sec, type: DS, data: "%s" }
            - { name: ns1.sec, type: A, data: 127.0.0.1 }
          services:
            - { name: geo, ttl: 30, pools: [eu-pool, us-pool], chain: [healthy, geo] }
        - origin: sec.example.test.
          soa: { mname: ns1.sec.example.test., rname: h.example.test., minimum: 60 }
          ns: [ns1.sec.example.test.]
          dnssec: { enabled: true, keyDirectory: keys }
          records:
            - { name: ns1, type: A, data: 127.0.0.1 }
            - { name: www, type: A, data: 192.0.2.81 }
        - origin: bad.test.
          soa: { mname: ns1.bad.test., rname: h.bad.test. }
          ns: [ns1.bad.test.]
          dnssec: { enabled: true, keyDirectory: keys }
          records:
            - { name: ns1, type: A, data: 192.0.2.54 }
      """;

  @TempDir static Path dir;
  private static SignedServer server;
  private static Process unbound;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    Path program = find("unbound");
    SigningKey key = TestKeys.csk(ORIGIN, DNSSEC.Algorithm.ECDSAP256SHA256);
    SigningKey child = TestKeys.csk(CHILD, DNSSEC.Algorithm.ED25519);
    SigningKey a = TestKeys.csk(BAD, DNSSEC.Algorithm.ECDSAP256SHA256);
    SigningKey b = TestKeys.csk(BAD, DNSSEC.Algorithm.ECDSAP256SHA256);
    SigningKey corrupted = new SigningKey(a.dnskey(), b.privateKey(), KeyTiming.always());
    String ds =
        new DSRecord(CHILD, DClass.IN, 3600, DNSSEC.Digest.SHA256, child.dnskey()).rdataToString();
    server =
        SignedServer.start(
            CONFIG.formatted(ds),
            TestKeys.source(
                Map.of(ORIGIN, List.of(key), CHILD, List.of(child), BAD, List.of(corrupted))),
            Ticker.SYSTEM);
    Files.writeString(dir.resolve("anchors"), key.dnskey() + "\n" + a.dnskey() + "\n");
    port = LoopbackPorts.reserve();
    String stubs = "";
    for (String zone : List.of("example.test.", "bad.test.")) {
      stubs +=
          "stub-zone:\n  name: \"%s\"\n  stub-addr: 127.0.0.1@%d\n".formatted(zone, server.port());
    }
    Files.writeString(
        dir.resolve("unbound.conf"),
        """
        server:
          interface: 127.0.0.1
          port: %d
          do-ip6: no
          do-not-query-localhost: no
          chroot: ""
          username: ""
          directory: "%s"
          pidfile: "%s/unbound.pid"
          use-syslog: no
          logfile: ""
          verbosity: 1
          val-log-level: 2
          num-threads: 1
          access-control: 127.0.0.0/8 allow
          trust-anchor-file: "%s/anchors"
          module-config: "subnetcache validator iterator"
          send-client-subnet: 127.0.0.1
          client-subnet-always-forward: yes
          qname-minimisation: no
          target-fetch-policy: "0 0 0 0 0"
          infra-keep-probing: yes
          # test. is one of unbound's built-in local zones (RFC 6761): here it is served.
          local-zone: "test." nodefault
        remote-control:
          control-enable: no
        %s
        """
            .formatted(port, dir, dir, dir, stubs));
    unbound =
        new ProcessBuilder(program.toString(), "-d", "-c", dir.resolve("unbound.conf").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("unbound.log").toFile())
            .start();
    // Ready when it answers; its start-up is bounded by attempts, not a wall-clock assertion.
    for (int i = 0; i < 100; i++) {
      try {
        ask("www.example.test.", Type.A, null);
        return;
      } catch (java.io.IOException e) {
        if (!unbound.isAlive()) {
          fail("unbound exited: " + Files.readString(dir.resolve("unbound.log")));
        }
        Thread.sleep(100);
      }
    }
    fail("unbound did not answer: " + Files.readString(dir.resolve("unbound.log")));
  }

  @AfterAll
  static void stop() {
    if (unbound != null) {
      unbound.destroy();
    }
    if (server != null) {
      server.close();
    }
  }

  private static Path find(String program) {
    String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin";
    for (String d : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, program))) {
        return Path.of(d, program);
      }
    }
    String reason = program + " (Debian package 'unbound') is not installed";
    if ("true".equals(System.getenv("CI"))) {
      fail(reason + "; CI=true, so this is a failure, not a skip");
    }
    System.err.println("SKIPPED UnboundValidationTest: " + reason);
    Assumptions.abort(reason);
    return null;
  }

  private static Message ask(String name, int type, String subnet) throws Exception {
    SimpleResolver r =
        new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    r.setTimeout(Duration.ofSeconds(5));
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    // A resolver sets AD only for a client that shows it understands it (RFC 6840 §5.7).
    q.getHeader().setFlag(Flags.AD);
    if (subnet != null) {
      q.addRecord(
          new OPTRecord(
              1232, 0, 0, 0, List.of(new ClientSubnetOption(24, InetAddress.getByName(subnet)))),
          Section.ADDITIONAL);
    }
    return r.send(q);
  }

  private static Message secure(String name, int type, String subnet) throws Exception {
    Message m = ask(name, type, subnet);
    assertTrue(m.getHeader().getFlag(Flags.AD), () -> name + " not secure:\n" + m + "\n" + log());
    return m;
  }

  private static String log() {
    try {
      return Files.readString(dir.resolve("unbound.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  private static String firstA(Message m) {
    return m.getSection(Section.ANSWER).stream()
        .filter(r -> r.getType() == Type.A)
        .map(Record::rdataToString)
        .findFirst()
        .orElse("none");
  }

  @Test
  void staticWildcardAndChainAreSecure() throws Exception {
    assertEquals("192.0.2.80", firstA(secure("www.example.test.", Type.A, null)));
    assertEquals("192.0.2.90", firstA(secure("any.apps.example.test.", Type.A, null)));
    assertEquals("192.0.2.80", firstA(secure("c1.example.test.", Type.A, null)));
  }

  @Test
  void denialIsSecure() throws Exception {
    Message nx = secure("nothere.example.test.", Type.A, null);
    // Compact denial: NOERROR with an NSEC carrying NXNAME (unbound reports it as it got it).
    assertTrue(nx.getRcode() == Rcode.NOERROR || nx.getRcode() == Rcode.NXDOMAIN);
    assertTrue(nx.getSection(Section.ANSWER).isEmpty());
    Message nodata = secure("www.example.test.", Type.TXT, null);
    assertEquals(Rcode.NOERROR, nodata.getRcode());
  }

  @Test
  void gslbAnswerIsSecureForEachRegion() throws Exception {
    assertEquals("198.51.100.1", firstA(secure("geo.example.test.", Type.A, "10.1.0.0")));
    assertEquals("198.51.100.2", firstA(secure("geo.example.test.", Type.A, "10.2.0.0")));
  }

  @Test
  void signedDelegationIsSecure() throws Exception {
    assertEquals("192.0.2.81", firstA(secure("www.sec.example.test.", Type.A, null)));
    secure("sec.example.test.", Type.DS, null);
  }

  @Test
  void wrongSignaturesAreBogus() throws Exception {
    Message m = ask("ns1.bad.test.", Type.A, null);
    assertEquals(Rcode.SERVFAIL, m.getRcode(), m::toString);
    assertFalse(m.getHeader().getFlag(Flags.AD));
  }
}
