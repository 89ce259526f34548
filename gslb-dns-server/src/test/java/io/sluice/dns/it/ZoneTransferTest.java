package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.ExtendedErrorCodeOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TSIGRecord;
import org.xbill.DNS.Type;
import org.xbill.DNS.ZoneTransferException;
import org.xbill.DNS.ZoneTransferIn;

/**
 * AXFR and IXFR over real TCP connections with dnsjava's transfer client: TSIG signing of every
 * message, wrong keys and signatures, ACLs, services and their fallbacks, the serial rule across a
 * reload and a restart, incremental transfers, and a transfer to a client that stops reading.
 */
class ZoneTransferTest {
  private static final Name ZONE = Name.fromConstantString("xfr.test.");
  private static final String SECRET = Base64.getEncoder().encodeToString(new byte[32]);

  @TempDir Path dir;
  private TestServer server;
  private final TransferEvents transfers = new TransferEvents();
  private final TransferEvents metrics = transfers;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private String yaml(String transfer, String extraRecords, String fallback, long serial) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        stateDir: %s
        pools:
          p1: { region: r1, endpoints: [{ name: a, address: 192.0.2.1 }] }
        regions: { r1: {} }
        topology: { defaultRegion: r1 }
        zones:
          - origin: xfr.test.
            soa: { mname: ns1.xfr.test., rname: h.xfr.test., serial: %d }
            ns: [ns1.xfr.test.]
            transfer: %s
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: www, type: A, data: 192.0.2.80 }
        %s
            services:
              - name: app
                pools: [p1]
        %s
        """
        .formatted(dir.resolve("state"), serial, transfer, extraRecords, fallback);
  }

  private static final String WITH_KEY =
      "{ allow: [127.0.0.0/8], tsig: { name: xfr-key, secretFile: xfr.key } }";
  private static final String FALLBACK = "        fallback: [192.0.2.99, \"2001:db8::99\"]";

  private void start(String yaml) throws Exception {
    writeKey();
    server = TestServer.start(yaml, dir, metrics);
  }

  private void writeKey() throws Exception {
    Path state = Files.createDirectories(dir.resolve("state"));
    Path key = state.resolve("xfr.key");
    if (!Files.exists(key)) {
      Files.writeString(key, SECRET + "\n");
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    }
  }

  private static TSIG key(String secret) {
    return new TSIG(TSIG.HMAC_SHA256, Name.fromConstantString("xfr-key."), secret);
  }

  private List<Record> axfr(TSIG tsig) throws Exception {
    ZoneTransferIn x = ZoneTransferIn.newAXFR(ZONE, "127.0.0.1", server.port(), tsig);
    x.setTimeout(java.time.Duration.ofSeconds(10));
    x.run();
    return x.getAXFR();
  }

  private static List<String> lines(List<Record> records) {
    List<String> out = new ArrayList<>();
    for (Record r : records) {
      out.add(
          r.getName()
              + " "
              + r.getTTL()
              + " "
              + Type.string(r.getType())
              + " "
              + r.rdataToString());
    }
    return out;
  }

  @Test
  void axfrWithTheKeyIsSignedAndCarriesServiceFallbacks() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    List<Record> zone = axfr(key(SECRET)); // dnsjava verifies every message's signature
    List<String> got = lines(zone);
    assertEquals(Type.SOA, zone.get(0).getType());
    assertEquals(7, ((SOARecord) zone.get(0)).getSerial());
    assertTrue(got.contains("www.xfr.test. 3600 A 192.0.2.80"), got.toString());
    assertTrue(got.contains("app.xfr.test. 60 A 192.0.2.99"), got.toString());
    assertTrue(got.contains("app.xfr.test. 60 AAAA 2001:db8:0:0:0:0:0:99"), got.toString());
    assertTrue(transfers.contains("xfr.test. AXFR FULL"), transfers.toString());
  }

  @Test
  void anHmacSha512KeySignsEveryMessage() throws Exception {
    String secret = Base64.getEncoder().encodeToString(new byte[64]);
    Path state = Files.createDirectories(dir.resolve("state"));
    Files.writeString(state.resolve("k512.key"), secret + "\n");
    Files.setPosixFilePermissions(
        state.resolve("k512.key"), PosixFilePermissions.fromString("rw-------"));
    server =
        TestServer.start(
            yaml(
                "{ tsig: { name: xfr-key, algorithm: hmac-sha512, secretFile: k512.key } }",
                "",
                FALLBACK,
                7),
            dir,
            metrics);
    List<Record> zone =
        axfr(new TSIG(TSIG.HMAC_SHA512, Name.fromConstantString("xfr-key."), secret));
    assertEquals(Type.SOA, zone.get(0).getType());
    // The same key name with another algorithm is another key: BADKEY.
    Message reply =
        ask(Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN)), key(SECRET));
    assertEquals(Rcode.NOTAUTH, reply.getRcode());
    assertEquals(Rcode.BADKEY, reply.getTSIG().getError());
  }

  @Test
  void aWrongSecretGetsNotauthBadsigAndNoData() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    TSIG wrong =
        key(
            Base64.getEncoder()
                .encodeToString(
                    new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
    Message reply = ask(Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN)), wrong);
    assertEquals(Rcode.NOTAUTH, reply.getRcode());
    assertEquals(0, reply.getSection(Section.ANSWER).size());
    TSIGRecord t = reply.getTSIG();
    assertNotNull(t);
    assertEquals(Rcode.BADSIG, t.getError());
    assertTrue(transfers.contains("xfr.test. AXFR NOTAUTH"), transfers.toString());
  }

  @Test
  void anUnknownKeyGetsBadkeyAndAnUnsignedRequestIsNotAuthorized() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    TSIG other = new TSIG(TSIG.HMAC_SHA256, Name.fromConstantString("other-key."), SECRET);
    Message reply = ask(Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN)), other);
    assertEquals(Rcode.NOTAUTH, reply.getRcode());
    assertEquals(Rcode.BADKEY, reply.getTSIG().getError());
    assertEquals(0, reply.getSection(Section.ANSWER).size());

    Message unsigned = ask(Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN)), null);
    assertEquals(Rcode.NOTAUTH, unsigned.getRcode());
    assertEquals(0, unsigned.getSection(Section.ANSWER).size());
    assertThrows(ZoneTransferException.class, () -> axfr(null));
  }

  @Test
  void aClientOutsideTheAllowedNetworksIsRefused() throws Exception {
    start(yaml("{ allow: [192.0.2.0/24] }", "", FALLBACK, 7));
    Message q = Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN));
    Message reply = ask(q, null);
    assertEquals(Rcode.REFUSED, reply.getRcode());
    assertEquals(0, reply.getSection(Section.ANSWER).size());
    assertTrue(edeText(reply).contains("not in transfer.allow"), edeText(reply));
    assertTrue(transfers.contains("xfr.test. AXFR REFUSED"), transfers.toString());
  }

  @Test
  void aZoneWithAServiceWithoutFallbackIsRefusedSayingWhy() throws Exception {
    start(yaml(WITH_KEY, "", "", 7));
    Message reply =
        ask(Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN)), key(SECRET));
    assertEquals(Rcode.REFUSED, reply.getRcode());
    assertEquals(0, reply.getSection(Section.ANSWER).size());
    assertTrue(edeText(reply).contains("app has no fallback"), edeText(reply));
    assertTrue(reply.isVerified(), "the refusal is signed with the request's key");
  }

  @Test
  void axfrOverUdpIsRefused() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    Message q = Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN));
    Message reply = new Message(server.udp(q.toWire()));
    assertEquals(Rcode.REFUSED, reply.getRcode());
    assertEquals(0, reply.getSection(Section.ANSWER).size());
  }

  @Test
  void aReloadAdvancesTheSerialAndIxfrSendsOnlyTheDifference() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    assertEquals(7, soaSerial());
    // Same configured serial, new content: the rule gives the last serial plus one.
    server.reload(
        yaml(WITH_KEY, "      - { name: new, type: A, data: 192.0.2.7 }", FALLBACK, 7), dir);
    assertEquals(8, soaSerial());

    ZoneTransferIn x =
        ZoneTransferIn.newIXFR(ZONE, 7, false, "127.0.0.1", server.port(), key(SECRET));
    x.run();
    assertTrue(x.isIXFR(), "an incremental answer, not the whole zone");
    List<ZoneTransferIn.Delta> deltas = x.getIXFR();
    assertEquals(1, deltas.size());
    assertEquals(7, deltas.get(0).start);
    assertEquals(8, deltas.get(0).end);
    assertEquals(List.of(), lines(deltas.get(0).deletes.subList(1, deltas.get(0).deletes.size())));
    assertEquals(
        List.of("new.xfr.test. 3600 A 192.0.2.7"),
        lines(deltas.get(0).adds.subList(1, deltas.get(0).adds.size())));
    assertTrue(transfers.contains("xfr.test. IXFR INCREMENTAL"), transfers.toString());

    // A reload without change keeps the serial; a current secondary gets one SOA.
    server.reload(
        yaml(WITH_KEY, "      - { name: new, type: A, data: 192.0.2.7 }", FALLBACK, 7), dir);
    assertEquals(8, soaSerial());
    ZoneTransferIn current =
        ZoneTransferIn.newIXFR(ZONE, 8, false, "127.0.0.1", server.port(), key(SECRET));
    current.run();
    assertTrue(current.isCurrent());

    // A serial with no kept history gets the whole zone (RFC 1995 §4).
    ZoneTransferIn old =
        ZoneTransferIn.newIXFR(ZONE, 3, false, "127.0.0.1", server.port(), key(SECRET));
    old.run();
    assertTrue(old.isAXFR());
    assertTrue(lines(old.getAXFR()).contains("new.xfr.test. 3600 A 192.0.2.7"));
  }

  @Test
  void theSerialNeverGoesBackAcrossARestart() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    server.reload(
        yaml(WITH_KEY, "      - { name: new, type: A, data: 192.0.2.7 }", FALLBACK, 7), dir);
    assertEquals(8, soaSerial());
    server.close();
    // The same content after a restart keeps serial 8, though the file still says 7.
    server =
        TestServer.start(
            yaml(WITH_KEY, "      - { name: new, type: A, data: 192.0.2.7 }", FALLBACK, 7),
            dir,
            metrics);
    assertEquals(8, soaSerial());
    server.close();
    // Changed while down: 9. An operator's higher serial wins when it is newer.
    server =
        TestServer.start(
            yaml(WITH_KEY, "      - { name: new, type: A, data: 192.0.2.8 }", FALLBACK, 7),
            dir,
            metrics);
    assertEquals(9, soaSerial());
    server.reload(
        yaml(WITH_KEY, "      - { name: new, type: A, data: 192.0.2.9 }", FALLBACK, 100), dir);
    assertEquals(100, soaSerial());
  }

  @Test
  void aSignedSoaQueryGetsASignedAnswer() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    Message reply = ask(Message.newQuery(Record.newRecord(ZONE, Type.SOA, DClass.IN)), key(SECRET));
    assertEquals(Rcode.NOERROR, reply.getRcode());
    assertTrue(reply.isVerified());
    assertTrue(reply.getHeader().getFlag(Flags.AA));
  }

  @Test
  void aClientThatStopsReadingHoldsBackOnlyItsOwnTransfer() throws Exception {
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      many.append("      - { name: h")
          .append(i)
          .append(", type: TXT, data: '\"")
          .append("x".repeat(40))
          .append(i)
          .append("\"' }\n");
    }
    start(yaml(WITH_KEY, many.toString(), FALLBACK, 7));
    try (Socket stalled = server.tcp()) {
      Message q = Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN));
      key(SECRET).apply(q, null);
      TestServer.writeFrame(stalled, q.toWire());
      // The one event loop keeps answering others while the first client reads nothing.
      for (int i = 0; i < 20; i++) {
        Message a = server.query("www.xfr.test.", Type.A, i % 2 == 0);
        assertEquals(Rcode.NOERROR, a.getRcode());
      }
      // Then the stalled client reads the whole zone, every message in order.
      stalled.setSoTimeout(10_000);
      int records = 0;
      int soas = 0;
      while (soas < 2) {
        Message m = new Message(TestServer.readFrame(stalled));
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertNotNull(m.getTSIG(), "every message is signed");
        for (Record r : m.getSection(Section.ANSWER)) {
          records++;
          soas += r.getType() == Type.SOA ? 1 : 0;
        }
      }
      // SOA, NS, ns1, www, the service's A and AAAA, the 20 000 TXT records, SOA.
      assertEquals(20_000 + 7, records);
    }
  }

  @Test
  void aBigRecordThatWouldOverflowAMessageStartsTheNextOne() throws Exception {
    // 40 KB records among small ones: one arriving when a message holds more than 25 KB cannot
    // join it (64 KiB at most). Over 20 of them, in the zone's own order, that happens.
    StringBuilder records = new StringBuilder();
    String chunk = "\"" + "y".repeat(250) + "\" ";
    for (int i = 0; i < 20; i++) {
      records
          .append("      - { name: big")
          .append(i)
          .append(", type: TXT, data: '")
          .append(chunk.repeat(160))
          .append("' }\n");
    }
    for (int i = 0; i < 2000; i++) {
      records.append("      - { name: s").append(i).append(", type: A, data: 192.0.2.1 }\n");
    }
    start(yaml(WITH_KEY, records.toString(), FALLBACK, 7));
    List<Record> zone = axfr(key(SECRET));
    assertEquals(20, zone.stream().filter(r -> r.getType() == Type.TXT).count());
    assertEquals(2000 + 3, zone.stream().filter(r -> r.getType() == Type.A).count());
    assertEquals(2, zone.stream().filter(r -> r.getType() == Type.SOA).count());
  }

  @Test
  void transfersAreExportedToPrometheusByZoneKindAndOutcome() throws Exception {
    writeKey();
    try (PrometheusMetrics prometheus = new PrometheusMetrics()) {
      server = TestServer.start(yaml(WITH_KEY, "", FALLBACK, 7), dir, prometheus.gslb());
      axfr(key(SECRET));
      ask(Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN)), null);
      String text = prometheus.scrape();
      assertTrue(
          text.contains(
              "sluice_dns_transfers_total{kind=\"axfr\",outcome=\"full\",zone=\"xfr.test.\"} 1.0"),
          text);
      assertTrue(
          text.contains(
              "sluice_dns_transfers_total{kind=\"axfr\",outcome=\"notauth\",zone=\"xfr.test.\"} 1.0"),
          text);
    }
  }

  @Test
  void aQueryPipelinedBehindATransferIsAnsweredAfterIt() throws Exception {
    start(yaml(WITH_KEY, "", FALLBACK, 7));
    try (Socket s = server.tcp()) {
      Message axfr = Message.newQuery(Record.newRecord(ZONE, Type.AXFR, DClass.IN));
      axfr.getHeader().setID(1);
      key(SECRET).apply(axfr, null);
      Message www =
          Message.newQuery(Record.newRecord(Name.fromString("www.xfr.test."), Type.A, DClass.IN));
      www.getHeader().setID(2);
      // Both in one write, so the server reads the second while the transfer is under way.
      java.io.ByteArrayOutputStream both = new java.io.ByteArrayOutputStream();
      for (byte[] m : List.of(axfr.toWire(), www.toWire())) {
        both.write(m.length >>> 8);
        both.write(m.length & 0xff);
        both.write(m);
      }
      s.getOutputStream().write(both.toByteArray());
      int soas = 0;
      for (int i = 0; i < 100; i++) {
        Message m = new Message(TestServer.readFrame(s));
        if (m.getHeader().getID() == 2) {
          assertEquals(2, soas, "the whole transfer came first");
          assertEquals("192.0.2.80", m.getSection(Section.ANSWER).get(0).rdataToString());
          return;
        }
        for (Record r : m.getSection(Section.ANSWER)) {
          soas += r.getType() == Type.SOA ? 1 : 0;
        }
      }
      org.junit.jupiter.api.Assertions.fail("no answer to the pipelined query");
    }
  }

  private long soaSerial() throws Exception {
    Message a = server.query("xfr.test.", Type.SOA, false);
    return ((SOARecord) a.getSection(Section.ANSWER).get(0)).getSerial();
  }

  /** Sends {@code q} over TCP, signed with {@code tsig} when given, and reads one reply. */
  private Message ask(Message q, TSIG tsig) throws Exception {
    q.addRecord(new org.xbill.DNS.OPTRecord(1232, 0, 0), Section.ADDITIONAL);
    if (tsig != null) {
      tsig.apply(q, null);
    }
    byte[] wire = q.toWire();
    try (Socket s = server.tcp()) {
      TestServer.writeFrame(s, wire);
      byte[] reply = TestServer.readFrame(s);
      Message m = new Message(reply);
      if (tsig != null && m.getTSIG() != null && m.getTSIG().getError() == Rcode.NOERROR) {
        assertEquals(Rcode.NOERROR, tsig.verify(m, reply, q.getTSIG()));
      }
      return m;
    }
  }

  private static String edeText(Message m) {
    if (m.getOPT() == null) {
      return "";
    }
    for (EDNSOption o : m.getOPT().getOptions()) {
      if (o instanceof ExtendedErrorCodeOption e) {
        return e.getText() == null ? "" : e.getText();
      }
    }
    return "";
  }

  @Test
  void transferProblemsAreReportedTogetherNamingTheirFields() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    yaml(
                        "{ allow: [10.0.0.1/8, nope], notify: [\"127.0.0.1:99999\"],"
                            + " tsig: { algorithm: hmac-sha512 } }",
                        "",
                        "        fallback: [not-an-address]",
                        7),
                    "test.yaml",
                    dir));
    String text = e.getMessage();
    for (String field :
        List.of(
            "zones[0].transfer.allow[0]",
            "zones[0].transfer.allow[1]",
            "zones[0].transfer.notify[0]",
            "zones[0].transfer.tsig.name",
            "zones[0].services[0].fallback[0]")) {
      assertTrue(text.contains(field), field + " in " + text);
    }
  }

  @Test
  void anUnknownAlgorithmOrAnOpenSectionIsRejected() {
    String alg =
        assertThrows(
                ConfigException.class,
                () ->
                    ConfigLoader.parse(
                        yaml("{ tsig: { name: k, algorithm: hmac-md5 } }", "", FALLBACK, 7),
                        "test.yaml",
                        dir))
            .getMessage();
    assertTrue(alg.contains("zones[0].transfer.tsig.algorithm"), alg);
    assertTrue(alg.contains("hmac-sha256"), alg);
    String open =
        assertThrows(
                ConfigException.class,
                () ->
                    ConfigLoader.parse(
                        yaml("{ notify: [127.0.0.1] }", "", FALLBACK, 7), "test.yaml", dir))
            .getMessage();
    assertTrue(open.contains("zones[0].transfer") && open.contains("needs 'allow'"), open);
  }
}
