package io.sluice.dns.dnssec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.spi.Ticker;
import io.sluice.dns.dnssec.keys.KeyTiming;
import io.sluice.dns.dnssec.keys.SigningKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;
import org.xbill.DNS.dnssec.ValidatingResolver;

/**
 * Every kind of answer of a signed zone, checked by dnsjava's validating resolver over real UDP:
 * static names, a GSLB name, compact denial for a missing name and a missing type, a wildcard, a
 * CNAME chain, a referral with and without DS, DNSKEY; and bogus when the signatures do not match
 * the published key.
 */
class ValidationTest {
  static final String ZONE =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1, udpPayloadSize: 1232 }
      pools:
        east:
          endpoints:
            - { name: e1, address: 198.51.100.1 }
            - { name: e6, address: "2001:db8::1" }
      zones:
        - origin: example.test.
          ttl: 3600
          soa: { mname: ns1.example.test., rname: h.example.test., serial: 7, minimum: 120 }
          ns: [ns1.example.test.]
          dnssec: { enabled: true, keyDirectory: keys }
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, ttl: 300, data: [192.0.2.80, 192.0.2.81] }
            - { name: c1, type: CNAME, data: c2.example.test. }
            - { name: c2, type: CNAME, data: www.example.test. }
            - { name: to-app, type: CNAME, data: app.example.test. }
            - { name: "*.apps", type: A, data: 192.0.2.90 }
            - { name: x.ent, type: A, data: 192.0.2.92 }
            - { name: dev, type: NS, data: ns1.dev.example.test. }
            - { name: ns1.dev, type: A, data: 192.0.2.201 }
            - { name: sec, type: NS, data: ns1.sec.example.test. }
            - { name: sec, type: DS, data: "12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" }
            - { name: ns1.sec, type: A, data: 192.0.2.202 }
            - { name: big, type: TXT, data: [%s] }
          services:
            - { name: app, ttl: 30, pools: [east] }
        - origin: bad.test.
          soa: { mname: ns1.bad.test., rname: h.bad.test. }
          ns: [ns1.bad.test.]
          dnssec: { enabled: true, keyDirectory: keys }
          records:
            - { name: ns1, type: A, data: 192.0.2.54 }
      """
          .formatted(bigTxt());

  private static String bigTxt() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      b.append(i == 0 ? "" : ", ")
          .append("'\"text number ")
          .append(i)
          .append(" of a large RRset\"'");
    }
    return b.toString();
  }

  static final Name ORIGIN = Name.fromConstantString("example.test.");
  static final Name BAD = Name.fromConstantString("bad.test.");
  private static SigningKey key;
  private static SigningKey published;
  private static SignedServer server;
  private static ValidatingResolver resolver;

  @BeforeAll
  static void start() throws Exception {
    key = TestKeys.csk(ORIGIN, DNSSEC.Algorithm.ECDSAP256SHA256);
    // bad.test. publishes one key and signs with another's private half: every signature fails.
    SigningKey a = TestKeys.csk(BAD, DNSSEC.Algorithm.ECDSAP256SHA256);
    SigningKey b = TestKeys.csk(BAD, DNSSEC.Algorithm.ECDSAP256SHA256);
    published = a;
    SigningKey corrupted = new SigningKey(a.dnskey(), b.privateKey(), KeyTiming.always());
    server =
        SignedServer.start(
            ZONE,
            TestKeys.source(Map.of(ORIGIN, List.of(key), BAD, List.of(corrupted))),
            Ticker.SYSTEM);
    resolver = server.validating(key, published);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Message secure(String name, int type) throws Exception {
    Message m = resolver.send(SignedServer.query(name, type));
    assertTrue(m.getHeader().getFlag(Flags.AD), name + "/" + Type.string(type) + ":\n" + m);
    return m;
  }

  @Test
  void staticAnswerIsSecure() throws Exception {
    Message m = secure("www.example.test.", Type.A);
    assertEquals(
        2, m.getSection(Section.ANSWER).stream().filter(r -> r.getType() == Type.A).count());
  }

  @Test
  void dnskeyIsSecure() throws Exception {
    secure("example.test.", Type.DNSKEY);
  }

  @Test
  void missingNameIsProvedByCompactDenial() throws Exception {
    Message m = secure("nothere.example.test.", Type.A);
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertTrue(m.getSection(Section.ANSWER).isEmpty());
  }

  @Test
  void missingTypeIsSecure() throws Exception {
    secure("www.example.test.", Type.TXT);
  }

  @Test
  void emptyNonTerminalIsSecure() throws Exception {
    secure("ent.example.test.", Type.A);
  }

  @Test
  void wildcardAnswerIsSecure() throws Exception {
    Message m = secure("foo.apps.example.test.", Type.A);
    assertEquals("192.0.2.90", m.getSection(Section.ANSWER).get(0).rdataToString());
    secure("deep.er.apps.example.test.", Type.A);
    secure("foo.apps.example.test.", Type.MX);
  }

  @Test
  void cnameChainIsSecure() throws Exception {
    Message m = secure("c1.example.test.", Type.A);
    assertTrue(m.getSection(Section.ANSWER).stream().anyMatch(r -> r.getType() == Type.A));
  }

  @Test
  void gslbAnswerIsSecure() throws Exception {
    Message m = secure("app.example.test.", Type.A);
    assertEquals("198.51.100.1", m.getSection(Section.ANSWER).get(0).rdataToString());
    secure("app.example.test.", Type.AAAA);
    secure("app.example.test.", Type.TXT);
    secure("to-app.example.test.", Type.A);
    // Signed before the snapshot was published, with the configured TTL as Original TTL.
    SignedZone sz =
        server
            .store
            .current()
            .artifacts()
            .get(io.sluice.dns.response.ServedZones.class)
            .signed()
            .zones()
            .stream()
            .filter(z -> z.zone().origin().equals(ORIGIN))
            .findFirst()
            .orElseThrow();
    assertTrue(sz.preparedSignatures() >= 2, "A and AAAA answers prepared");
    Message raw = rawDo("app.example.test.", Type.A);
    RRSIGRecord sig = (RRSIGRecord) raw.getSection(Section.ANSWER).get(1);
    assertEquals(30, sig.getOrigTTL());
    assertEquals(raw.getSection(Section.ANSWER).get(0).getTTL(), sig.getTTL());
  }

  @Test
  void referralsProveTheirDsOrItsAbsence() throws Exception {
    Message unsignedChild = secure("dev.example.test.", Type.DS);
    assertTrue(unsignedChild.getSection(Section.ANSWER).isEmpty());
    Message signedChild = secure("sec.example.test.", Type.DS);
    assertEquals(Type.DS, signedChild.getSection(Section.ANSWER).get(0).getType());
    // The referral itself, as a resolver would receive it.
    Message referral = rawDo("www.dev.example.test.", Type.A);
    assertTrue(
        referral.getSection(Section.AUTHORITY).stream().anyMatch(r -> r.getType() == Type.NSEC));
    Message withDs = rawDo("www.sec.example.test.", Type.A);
    assertTrue(
        withDs.getSection(Section.AUTHORITY).stream()
            .anyMatch(r -> r instanceof RRSIGRecord s && s.getTypeCovered() == Type.DS));
  }

  @Test
  void tooLargeForTheBufferIsTruncatedWithoutPartialRrsets() throws Exception {
    Message q = SignedServer.query("big.example.test.", Type.TXT);
    q.addRecord(new OPTRecord(512, 0, 0, org.xbill.DNS.ExtendedFlags.DO), Section.ADDITIONAL);
    org.xbill.DNS.SimpleResolver udp = server.plain();
    udp.setIgnoreTruncation(true);
    Message m = udp.send(q);
    assertTrue(m.getHeader().getFlag(Flags.TC), m.toString());
    // Nothing of the RRset, or all of it with its signature: never a part.
    long txt = count(m, Section.ANSWER, Type.TXT);
    assertTrue(txt == 0 || (txt == 12 && count(m, Section.ANSWER, Type.RRSIG) == 1), m.toString());
    // Over TCP (which the validating resolver falls back to) the whole answer is secure.
    assertEquals(12, count(secure("big.example.test.", Type.TXT), Section.ANSWER, Type.TXT));
  }

  @Test
  void wrongSignaturesAreBogus() throws Exception {
    Message m = resolver.send(SignedServer.query("ns1.bad.test.", Type.A));
    assertEquals(Rcode.SERVFAIL, m.getRcode(), m.toString());
    assertFalse(m.getHeader().getFlag(Flags.AD));
  }

  @Test
  void signaturesOnlyWithDo() throws Exception {
    Message plain = server.plain().send(SignedServer.query("www.example.test.", Type.A));
    assertTrue(plain.getSection(Section.ANSWER).stream().noneMatch(r -> r.getType() == Type.RRSIG));
    Message wild = rawDo("foo.apps.example.test.", Type.A);
    RRSIGRecord sig =
        (RRSIGRecord)
            wild.getSection(Section.ANSWER).stream()
                .filter(r -> r.getType() == Type.RRSIG)
                .findFirst()
                .orElseThrow();
    // The wildcard's own label count (apps.example.test.), not the name asked for.
    assertEquals(3, sig.getLabels());
    assertEquals(Name.fromString("foo.apps.example.test."), sig.getName());
  }

  static Message rawDo(String name, int type) throws Exception {
    return rawDo(server, name, type);
  }

  /** A query with the DO bit, answered as is (no validation). */
  static Message rawDo(SignedServer server, String name, int type) throws Exception {
    Message q = SignedServer.query(name, type);
    q.addRecord(new OPTRecord(1232, 0, 0, org.xbill.DNS.ExtendedFlags.DO), Section.ADDITIONAL);
    return server.plain().send(q);
  }

  static long count(Message m, int section, int type) {
    return m.getSection(section).stream().map(Record::getType).filter(t -> t == type).count();
  }
}
