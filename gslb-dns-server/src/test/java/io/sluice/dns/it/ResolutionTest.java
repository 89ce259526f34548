package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * What the server answers for each kind of name, over UDP and TCP: one row per behaviour, with the
 * expected rcode, AA flag, answer records (as zone text, sorted) and authority types.
 */
class ResolutionTest {
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(TestZones.CONFIG);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  record Case(
      String why,
      String qname,
      int qtype,
      int rcode,
      boolean aa,
      List<String> answer,
      List<Integer> authority) {
    @Override
    public String toString() {
      return why;
    }
  }

  static Stream<Case> cases() {
    int a = Type.A;
    return Stream.of(
        new Case(
            "static A RRset",
            "www.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of("www.example.test. 300 A 192.0.2.80", "www.example.test. 300 A 192.0.2.81"),
            List.of()),
        new Case(
            "static AAAA",
            "www.example.test.",
            Type.AAAA,
            Rcode.NOERROR,
            true,
            List.of("www.example.test. 300 AAAA 2001:db8:0:0:0:0:0:80"),
            List.of()),
        new Case(
            "apex MX",
            "example.test.",
            Type.MX,
            Rcode.NOERROR,
            true,
            List.of("example.test. 3600 MX 10 mail.example.test."),
            List.of()),
        new Case(
            "apex NS from config",
            "example.test.",
            Type.NS,
            Rcode.NOERROR,
            true,
            List.of(
                "example.test. 3600 NS ns1.example.test.",
                "example.test. 3600 NS ns2.example.test."),
            List.of()),
        new Case(
            "apex SOA",
            "example.test.",
            Type.SOA,
            Rcode.NOERROR,
            true,
            List.of(
                "example.test. 600 SOA ns1.example.test. hostmaster.example.test. 7 7200 1800 1209600 120"),
            List.of()),
        new Case(
            "SRV",
            "_sip._tcp.example.test.",
            Type.SRV,
            Rcode.NOERROR,
            true,
            List.of("_sip._tcp.example.test. 3600 SRV 10 60 5060 sip.example.test."),
            List.of()),
        new Case(
            "CAA",
            "example.test.",
            Type.CAA,
            Rcode.NOERROR,
            true,
            List.of("example.test. 3600 CAA 0 issue \"ca.example.net\""),
            List.of()),
        new Case(
            "PTR",
            "ptr.example.test.",
            Type.PTR,
            Rcode.NOERROR,
            true,
            List.of("ptr.example.test. 3600 PTR www.example.test."),
            List.of()),
        new Case(
            "NXDOMAIN with SOA",
            "nope.example.test.",
            a,
            Rcode.NXDOMAIN,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "NODATA with SOA",
            "mail.example.test.",
            Type.AAAA,
            Rcode.NOERROR,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "empty non-terminal is NODATA",
            "ent.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "CNAME followed inside the zone",
            "blog.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of(
                "blog.example.test. 3600 CNAME www.example.test.",
                "www.example.test. 300 A 192.0.2.80",
                "www.example.test. 300 A 192.0.2.81"),
            List.of()),
        new Case(
            "CNAME chain of two",
            "c1.example.test.",
            Type.AAAA,
            Rcode.NOERROR,
            true,
            List.of(
                "c1.example.test. 3600 CNAME c2.example.test.",
                "c2.example.test. 3600 CNAME www.example.test.",
                "www.example.test. 300 AAAA 2001:db8:0:0:0:0:0:80"),
            List.of()),
        new Case(
            "CNAME asked for itself",
            "blog.example.test.",
            Type.CNAME,
            Rcode.NOERROR,
            true,
            List.of("blog.example.test. 3600 CNAME www.example.test."),
            List.of()),
        new Case(
            "CNAME to a missing name is NXDOMAIN (RFC 6604)",
            "dangling.example.test.",
            a,
            Rcode.NXDOMAIN,
            true,
            List.of("dangling.example.test. 3600 CNAME gone.example.test."),
            List.of(Type.SOA)),
        new Case(
            "CNAME out of the zone is not chased",
            "away.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of("away.example.test. 3600 CNAME www.example.org."),
            List.of()),
        new Case(
            "CNAME loop stops",
            "loop1.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of(
                "loop1.example.test. 3600 CNAME loop2.example.test.",
                "loop2.example.test. 3600 CNAME loop1.example.test."),
            List.of()),
        new Case(
            "wildcard synthesizes the owner",
            "foo.apps.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of("foo.apps.example.test. 3600 A 192.0.2.90"),
            List.of()),
        new Case(
            "wildcard matches several labels",
            "a.b.apps.example.test.",
            Type.TXT,
            Rcode.NOERROR,
            true,
            List.of("a.b.apps.example.test. 3600 TXT \"wild\""),
            List.of()),
        new Case(
            "wildcard NODATA",
            "foo.apps.example.test.",
            Type.MX,
            Rcode.NOERROR,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "existing name beats the wildcard",
            "real.apps.example.test.",
            Type.TXT,
            Rcode.NOERROR,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "no wildcard below an existing name (RFC 4592 closest encloser)",
            "y.x.ent.example.test.",
            a,
            Rcode.NXDOMAIN,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "referral at the cut",
            "dev.example.test.",
            a,
            Rcode.NOERROR,
            false,
            List.of(),
            List.of(Type.NS, Type.NS)),
        new Case(
            "referral below the cut",
            "host.dev.example.test.",
            Type.MX,
            Rcode.NOERROR,
            false,
            List.of(),
            List.of(Type.NS, Type.NS)),
        new Case(
            "DS at the cut is the parent's (NODATA)",
            "dev.example.test.",
            Type.DS,
            Rcode.NOERROR,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "outside every zone: REFUSED",
            "www.example.org.",
            a,
            Rcode.REFUSED,
            false,
            List.of(),
            List.of()),
        new Case(
            "ANY gets one HINFO (RFC 8482)",
            "www.example.test.",
            Type.ANY,
            Rcode.NOERROR,
            true,
            List.of("www.example.test. 120 HINFO \"RFC8482\" \"\""),
            List.of()),
        new Case(
            "service A from the planner",
            "app.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of("app.example.test. 30 A 198.51.100.1", "app.example.test. 30 A 198.51.100.2"),
            List.of()),
        new Case(
            "service AAAA from the planner",
            "app.example.test.",
            Type.AAAA,
            Rcode.NOERROR,
            true,
            List.of("app.example.test. 30 AAAA 2001:db8:0:0:0:0:0:1"),
            List.of()),
        new Case(
            "service MX is NODATA",
            "app.example.test.",
            Type.MX,
            Rcode.NOERROR,
            true,
            List.of(),
            List.of(Type.SOA)),
        new Case(
            "service answering with a CNAME",
            "cdn.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of("cdn.example.test. 20 CNAME edge.cdn.example.net."),
            List.of()),
        new Case(
            "CNAME into a service",
            "to-app.example.test.",
            a,
            Rcode.NOERROR,
            true,
            List.of(
                "to-app.example.test. 3600 CNAME app.example.test.",
                "app.example.test. 30 A 198.51.100.1",
                "app.example.test. 30 A 198.51.100.2"),
            List.of()));
  }

  @ParameterizedTest(name = "udp: {0}")
  @MethodSource("cases")
  void udp(Case c) throws Exception {
    check(c, server.query(c.qname, c.qtype, false));
  }

  @ParameterizedTest(name = "tcp: {0}")
  @MethodSource("cases")
  void tcp(Case c) throws Exception {
    check(c, server.query(c.qname, c.qtype, true));
  }

  private static void check(Case c, Message m) {
    assertEquals(Rcode.string(c.rcode), Rcode.string(m.getRcode()), "rcode");
    assertEquals(c.aa, m.getHeader().getFlag(Flags.AA), "AA");
    assertTrue(m.getHeader().getFlag(Flags.QR), "QR");
    assertFalse(m.getHeader().getFlag(Flags.RA), "RA must be clear");
    List<String> answer =
        m.getSection(Section.ANSWER).stream().map(ResolutionTest::text).sorted().toList();
    assertEquals(c.answer.stream().sorted().toList(), answer, "answer");
    List<Integer> authority =
        m.getSection(Section.AUTHORITY).stream().map(Record::getType).toList();
    assertEquals(c.authority, authority, "authority types");
  }

  static String text(Record r) {
    return r.getName()
        + " "
        + r.getTTL()
        + " "
        + Type.string(r.getType())
        + " "
        + r.rdataToString();
  }

  @org.junit.jupiter.api.Test
  void negativeAnswersCarryTheRfc2308Ttl() throws Exception {
    Message m = server.query("nope.example.test.", Type.A, false);
    SOARecord soa = (SOARecord) m.getSection(Section.AUTHORITY).get(0);
    // min(SOA TTL 600, SOA minimum 120)
    assertEquals(120, soa.getTTL());
  }

  @org.junit.jupiter.api.Test
  void nodataAtAServiceNameIsCappedToTheServiceTtl() throws Exception {
    Message m = server.query("app.example.test.", Type.MX, false);
    assertEquals(0, m.getSection(Section.ANSWER).size());
    SOARecord soa = (SOARecord) m.getSection(Section.AUTHORITY).get(0);
    // min(SOA TTL 600, SOA minimum 120, the service's ttl 30)
    assertEquals(30, soa.getTTL());
  }

  @org.junit.jupiter.api.Test
  void referralCarriesGlueForInBailiwickServersOnly() throws Exception {
    Message m = server.query("www.dev.example.test.", Type.A, false);
    List<String> glue =
        m.getSection(Section.ADDITIONAL).stream()
            .filter(r -> r.getType() != Type.OPT)
            .map(ResolutionTest::text)
            .toList();
    assertEquals(List.of("ns1.dev.example.test. 3600 A 192.0.2.201"), glue);
  }
}
