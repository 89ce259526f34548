package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Where answers used to part from the reference servers: DNAME substitution (RFC 6672), the CNAME
 * chain limit Knot applies, a CNAME chain that leads below a delegation, and DS at the apex of a
 * child zone served beside its parent.
 */
class ChainAndDnameTest {
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    StringBuilder chain = new StringBuilder();
    for (int i = 1; i <= 9; i++) {
      chain.append("      - { name: l%d, type: CNAME, data: l%d }\n".formatted(i, i + 1));
    }
    server =
        TestServer.start(
            """
            dns: { listen: [127.0.0.1], port: 0, threads: 1 }
            zones:
              - origin: example.test.
                ttl: 3600
                soa: { mname: ns1.example.test., rname: h.example.test., minimum: 120 }
                ns: [ns1.example.test.]
                records:
                  - { name: ns1, type: A, data: 192.0.2.53 }
                  - { name: old, type: DNAME, ttl: 600, data: new.example.test. }
                  - { name: www.new, type: A, data: 192.0.2.70 }
                  - { name: away, type: DNAME, data: example.net. }
                  - { name: l10, type: A, data: 192.0.2.110 }
                  - { name: tocut, type: CNAME, data: x.dev.example.test. }
                  - { name: dev, type: NS, data: ns1.dev.example.test. }
                  - { name: ns1.dev, type: A, data: 192.0.2.201 }
                  - { name: kid, type: NS, data: ns1.kid.example.test. }
                  - { name: ns1.kid, type: A, data: 192.0.2.202 }
            %s
              - origin: kid.example.test.
                ttl: 3600
                soa: { mname: ns1.kid.example.test., rname: h.example.test., minimum: 60 }
                ns: [ns1.kid.example.test.]
                records:
                  - { name: ns1, type: A, data: 192.0.2.202 }
            """
                .formatted(chain));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static List<String> section(Message m, int section) {
    return TestServer.section(m, section);
  }

  @Test
  void aNameBelowADnameIsRewrittenAndFollowed() throws Exception {
    Message m = server.query("www.old.example.test.", Type.A, false);
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertEquals(
        List.of(
            "old.example.test. 600 DNAME new.example.test.",
            "www.old.example.test. 600 CNAME www.new.example.test.",
            "www.new.example.test. 3600 A 192.0.2.70"),
        section(m, Section.ANSWER));

    Message missing = server.query("x.old.example.test.", Type.A, false);
    assertEquals(Rcode.NXDOMAIN, missing.getRcode(), "the rewritten name does not exist");
    assertEquals(2, missing.getSection(Section.ANSWER).size());

    Message cname = server.query("x.old.example.test.", Type.CNAME, false);
    assertEquals(Rcode.NOERROR, cname.getRcode(), "the synthesized CNAME answers CNAME");

    Message outside = server.query("a.away.example.test.", Type.A, false);
    assertEquals(
        List.of(
            "away.example.test. 3600 DNAME example.net.",
            "a.away.example.test. 3600 CNAME a.example.net."),
        section(outside, Section.ANSWER));

    Message owner = server.query("old.example.test.", Type.A, false);
    assertTrue(owner.getSection(Section.ANSWER).isEmpty(), "the DNAME owner itself is NODATA");
  }

  @Test
  void chainsStopAfterFiveLinksAsAtKnot() throws Exception {
    Message five = server.query("l4.example.test.", Type.A, false);
    assertEquals(5, five.getSection(Section.ANSWER).size(), "l4..l8: five CNAMEs, l9's not added");
    Message last = server.query("l5.example.test.", Type.A, false);
    List<String> answer = section(last, Section.ANSWER);
    assertEquals(6, answer.size(), answer.toString());
    assertEquals("l10.example.test. 3600 A 192.0.2.110", answer.get(5));
  }

  @Test
  void aChainIntoADelegationEndsInTheReferral() throws Exception {
    Message m = server.query("tocut.example.test.", Type.A, false);
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertTrue(m.getHeader().getFlag(Flags.AA), "the CNAME is authoritative");
    assertEquals(
        List.of("tocut.example.test. 3600 CNAME x.dev.example.test."), section(m, Section.ANSWER));
    assertEquals(
        List.of("dev.example.test. 3600 NS ns1.dev.example.test."), section(m, Section.AUTHORITY));
    assertFalse(section(m, Section.ADDITIONAL).isEmpty(), "with its glue");
  }

  @Test
  void rrsigAndNsecAtACnameAreAnsweredAtTheNameItself() throws Exception {
    for (int type : new int[] {Type.RRSIG, Type.NSEC}) {
      Message m = server.query("l1.example.test.", type, false);
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertTrue(m.getSection(Section.ANSWER).isEmpty(), "not followed through the CNAME: " + m);
      assertEquals(Type.SOA, m.getSection(Section.AUTHORITY).get(0).getType());
    }
  }

  @Test
  void dsAtAChildApexComesFromTheParent() throws Exception {
    Message ds = server.query("kid.example.test.", Type.DS, false);
    assertEquals(Rcode.NOERROR, ds.getRcode());
    assertTrue(ds.getHeader().getFlag(Flags.AA));
    assertEquals("example.test.", ds.getSection(Section.AUTHORITY).get(0).getName().toString());
    Message ns = server.query("kid.example.test.", Type.NS, false);
    assertTrue(ns.getHeader().getFlag(Flags.AA), "the child answers for its own apex");
    assertEquals(1, ns.getSection(Section.ANSWER).size());
  }
}
