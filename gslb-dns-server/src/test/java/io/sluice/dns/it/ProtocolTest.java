package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/** Header, EDNS, ECS, truncation, opcode and malformed-packet behaviour, over real sockets. */
class ProtocolTest {
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(TestZones.CONFIG);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Message query(String name, int type) throws Exception {
    Message m = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    m.getHeader().setID(0x1234);
    return m;
  }

  private static Message withOpt(Message m, int payload, int version, int flags, EDNSOption... o)
      throws Exception {
    m.addRecord(new OPTRecord(payload, 0, version, flags, List.of(o)), Section.ADDITIONAL);
    return m;
  }

  private static Message udp(Message q) throws Exception {
    byte[] reply = server.udp(q.toWire());
    assertNotNull(reply, "no reply");
    return new Message(reply);
  }

  @Test
  void echoesIdRdAndQuestionCase() throws Exception {
    Message q = query("WwW.ExAmPlE.TeSt.", Type.A);
    byte[] reply = server.udp(q.toWire());
    Message m = new Message(reply);
    assertEquals(0x1234, m.getHeader().getID());
    assertTrue(m.getHeader().getFlag(Flags.RD));
    assertTrue(m.getHeader().getFlag(Flags.AA));
    assertFalse(m.getHeader().getFlag(Flags.RA));
    // The question bytes are the query's, letter for letter.
    byte[] asked = Arrays.copyOfRange(q.toWire(), 12, 12 + 19);
    assertArrayEquals(asked, Arrays.copyOfRange(reply, 12, 12 + 19));
    assertEquals("WwW.ExAmPlE.TeSt.", m.getQuestion().getName().toString());

    Message noRd = query("www.example.test.", Type.A);
    noRd.getHeader().unsetFlag(Flags.RD);
    assertFalse(udp(noRd).getHeader().getFlag(Flags.RD));
  }

  /**
   * Static answers are found by the question's bytes and service answers are cached by name: any
   * spelling of a name gets the same records, under the question spelled as asked.
   */
  @Test
  void everyKindOfNameIsAnsweredInAnyLetterCase() throws Exception {
    String[][] spellings = {
      {"www.example.test.", "WWW.EXAMPLE.TEST."},
      {"app.example.test.", "aPp.ExAmple.tEST."},
      {"x.apps.example.test.", "X.Apps.Example.Test."},
      {"nx.example.test.", "NX.example.TEST."},
      {"to-app.example.test.", "TO-APP.example.test."}
    };
    for (String[] s : spellings) {
      Message lower = udp(query(s[0], Type.A));
      Message mixed = udp(query(s[1], Type.A));
      assertEquals(s[1], mixed.getQuestion().getName().toString(), s[1]);
      assertEquals(lower.getRcode(), mixed.getRcode(), s[1]);
      // Owner names point at the question, so they take its spelling too.
      for (int section : new int[] {Section.ANSWER, Section.AUTHORITY}) {
        assertEquals(
            lower.getSection(section).toString().toLowerCase(java.util.Locale.ROOT),
            mixed.getSection(section).toString().toLowerCase(java.util.Locale.ROOT),
            s[1]);
      }
    }
  }

  @Test
  void withoutEdnsAnswersFit512BytesOrAreTruncated() throws Exception {
    byte[] reply = server.udp(query("big.example.test.", Type.TXT).toWire());
    assertTrue(reply.length <= 512, "reply of " + reply.length + " bytes");
    Message m = new Message(reply);
    assertTrue(m.getHeader().getFlag(Flags.TC));
    assertEquals(0, m.getSection(Section.ANSWER).size(), "no partial RRset");
    assertEquals("big.example.test.", m.getQuestion().getName().toString());
  }

  @Test
  void truncatedOverUdpIsWholeOverTcp() throws Exception {
    Message udp = udp(withOpt(query("big.example.test.", Type.TXT), 1232, 0, 0));
    assertTrue(udp.getHeader().getFlag(Flags.TC));
    assertNotNull(udp.getOPT(), "OPT kept in a truncated reply");
    try (Socket s = server.tcp()) {
      TestServer.writeFrame(s, query("big.example.test.", Type.TXT).toWire());
      Message tcp = new Message(TestServer.readFrame(s));
      assertFalse(tcp.getHeader().getFlag(Flags.TC));
      assertEquals(40, tcp.getSection(Section.ANSWER).size());
    }
  }

  @Test
  void largeEdnsBufferGetsTheWholeAnswerUpToTheServerLimit() throws Exception {
    Message m = udp(withOpt(query("big.example.test.", Type.TXT), 4096, 0, 0));
    // The server's 1232-byte limit wins over the client's 4096.
    assertTrue(m.getHeader().getFlag(Flags.TC));
    Message small = udp(withOpt(query("www.example.test.", Type.A), 4096, 0, 0));
    assertFalse(small.getHeader().getFlag(Flags.TC));
    assertEquals(1232, small.getOPT().getPayloadSize());
  }

  @Test
  void ednsOptIsEchoedWithDoBit() throws Exception {
    Message m = udp(withOpt(query("www.example.test.", Type.A), 1400, 0, Flags.DO));
    OPTRecord opt = m.getOPT();
    assertNotNull(opt);
    assertEquals(0, opt.getVersion());
    assertEquals(Flags.DO, opt.getFlags() & Flags.DO);
    assertNull(udp(query("www.example.test.", Type.A)).getOPT(), "no OPT without EDNS");
  }

  @Test
  void unknownEdnsVersionIsBadvers() throws Exception {
    Message m = udp(withOpt(query("www.example.test.", Type.A), 1232, 1, 0));
    assertEquals(Rcode.BADVERS, m.getRcode());
    assertEquals(0, m.getOPT().getVersion());
    assertEquals(0, m.getSection(Section.ANSWER).size());
  }

  @Test
  void unknownOptionsAndCookiesAreTolerated() throws Exception {
    byte[] clientCookie = {1, 2, 3, 4, 5, 6, 7, 8};
    Message m =
        udp(
            withOpt(
                query("www.example.test.", Type.A),
                1232,
                0,
                0,
                new GenericEDNSOption(65001, new byte[] {9, 9}),
                new CookieOption(clientCookie)));
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertEquals(2, m.getSection(Section.ANSWER).size());
  }

  @Test
  void malformedCookieIsFormerr() throws Exception {
    Message m =
        udp(
            withOpt(
                query("www.example.test.", Type.A),
                1232,
                0,
                0,
                new GenericEDNSOption(10, new byte[] {1, 2, 3})));
    assertEquals(Rcode.FORMERR, m.getRcode());
  }

  @Test
  void ecsIsEchoedWithScopeZeroForStaticAnswers() throws Exception {
    ClientSubnetOption ecs = new ClientSubnetOption(24, InetAddress.getByName("10.2.3.0"));
    Message m = udp(withOpt(query("www.example.test.", Type.A), 1232, 0, 0, ecs));
    List<EDNSOption> options = m.getOPT().getOptions(EDNSOption.Code.CLIENT_SUBNET);
    assertEquals(1, options.size());
    ClientSubnetOption echoed = (ClientSubnetOption) options.get(0);
    assertEquals(24, echoed.getSourcePrefixLength());
    assertEquals(0, echoed.getScopePrefixLength());
    assertEquals(InetAddress.getByName("10.2.3.0"), echoed.getAddress());
  }

  @Test
  void ecsIsEchoedForServiceAnswers() throws Exception {
    ClientSubnetOption ecs = new ClientSubnetOption(56, InetAddress.getByName("2001:db8:1:200::"));
    Message m = udp(withOpt(query("app.example.test.", Type.A), 1232, 0, 0, ecs));
    ClientSubnetOption echoed =
        (ClientSubnetOption) m.getOPT().getOptions(EDNSOption.Code.CLIENT_SUBNET).get(0);
    assertEquals(56, echoed.getSourcePrefixLength());
    assertEquals(2, m.getSection(Section.ANSWER).size());
  }

  @Test
  void invalidEcsIsFormerr() throws Exception {
    Map<String, byte[]> bad = new HashMap<>();
    bad.put("unknown family", new byte[] {0, 3, 24, 0, 10, 2, 3});
    bad.put("non-zero scope in a query", new byte[] {0, 1, 24, 24, 10, 2, 3});
    bad.put("address longer than the prefix", new byte[] {0, 1, 16, 0, 10, 2, 3});
    bad.put("host bits set beyond the prefix", new byte[] {0, 1, 23, 0, 10, 2, 3});
    bad.put("prefix beyond 32 bits", new byte[] {0, 1, 33, 0, 10, 2, 3, 4, 5});
    bad.put("option too short", new byte[] {0, 1});
    for (Map.Entry<String, byte[]> e : bad.entrySet()) {
      Message q =
          withOpt(
              query("www.example.test.", Type.A),
              1232,
              0,
              0,
              new GenericEDNSOption(8, e.getValue()));
      assertEquals(Rcode.FORMERR, udp(q).getRcode(), e.getKey());
    }
  }

  @Test
  void unknownOpcodesNotifyAndUpdateAreNotimp() throws Exception {
    for (int opcode : new int[] {Opcode.NOTIFY, Opcode.UPDATE, Opcode.IQUERY, 3, 15}) {
      Message q = query("www.example.test.", Type.SOA);
      q.getHeader().setOpcode(opcode);
      Message m = udp(q);
      assertEquals(Rcode.NOTIMP, m.getRcode(), "opcode " + opcode);
      assertEquals(opcode, m.getHeader().getOpcode());
    }
  }

  @Test
  void questionCountOtherThanOneIsFormerr() throws Exception {
    byte[] none = query("www.example.test.", Type.A).toWire();
    byte[] header = Arrays.copyOf(none, 12);
    header[5] = 0;
    assertEquals(Rcode.FORMERR, new Message(server.udp(header)).getRcode());

    Message two = query("www.example.test.", Type.A);
    two.addRecord(
        Record.newRecord(Name.fromString("mail.example.test."), Type.A, DClass.IN),
        Section.QUESTION);
    assertEquals(Rcode.FORMERR, udp(two).getRcode());
  }

  @Test
  void malformedBodyWithReadableHeaderIsFormerr() throws Exception {
    byte[] good = query("www.example.test.", Type.A).toWire();
    byte[] cut = Arrays.copyOf(good, good.length - 3);
    Message m = new Message(server.udp(cut));
    assertEquals(Rcode.FORMERR, m.getRcode());
    assertEquals(0x1234, m.getHeader().getID());
  }

  @Test
  void packetsShorterThanAHeaderAndResponsesGetSilence() throws Exception {
    assertNull(server.udp(new byte[] {0x12, 0x34, 0, 0, 0}, 300));
    byte[] response = query("www.example.test.", Type.A).toWire();
    response[2] |= (byte) 0x80;
    assertNull(server.udp(response, 300));
    // Still serving afterwards.
    assertEquals(Rcode.NOERROR, udp(query("www.example.test.", Type.A)).getRcode());
  }

  @Test
  void chaosIsRefusedUnlessConfigured() throws Exception {
    Message q =
        Message.newQuery(Record.newRecord(Name.fromString("version.bind."), Type.TXT, DClass.CH));
    assertEquals(Rcode.REFUSED, udp(q).getRcode());
    String configured =
        TestZones.CONFIG.replace(
            "maxTcpConnections: 64", "maxTcpConnections: 64\n  chaos: { version: sluice-test }");
    try (TestServer chaos = TestServer.start(configured)) {
      Message m = new Message(chaos.udp(q.toWire()));
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals("\"sluice-test\"", m.getSection(Section.ANSWER).get(0).rdataToString());
      Message id =
          Message.newQuery(Record.newRecord(Name.fromString("id.server."), Type.TXT, DClass.CH));
      assertEquals(Rcode.REFUSED, new Message(chaos.udp(id.toWire())).getRcode());
    }
  }

  @Test
  void otherClassesAndZoneTransfersAreRefused() throws Exception {
    Message hs =
        Message.newQuery(Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.HS));
    assertEquals(Rcode.REFUSED, udp(hs).getRcode());
    assertEquals(Rcode.REFUSED, udp(query("example.test.", Type.AXFR)).getRcode());
  }

  @Test
  void tcpAnswersPipelinedQueriesOnOneConnection() throws Exception {
    String[] names = {"www.example.test.", "mail.example.test.", "nope.example.test."};
    try (Socket s = server.tcp()) {
      for (int i = 0; i < names.length; i++) {
        Message q = query(names[i], Type.A);
        q.getHeader().setID(100 + i);
        TestServer.writeFrame(s, q.toWire());
      }
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < names.length; i++) {
        Message m = new Message(TestServer.readFrame(s));
        ids.add(m.getHeader().getID());
        assertEquals(names[m.getHeader().getID() - 100], m.getQuestion().getName().toString());
      }
      assertEquals(List.of(100, 101, 102), ids.stream().sorted().toList());
    }
  }

  @Test
  void tcpIdleConnectionsAreClosed() throws Exception {
    try (Socket s = server.tcp()) {
      // The server's idle timeout is 500 ms; the read returns end-of-stream when it closes.
      s.setSoTimeout(5000);
      assertEquals(-1, s.getInputStream().read());
    }
  }

  @Test
  void aFullTableClosesTheConnectionWaitingLongestNotTheNewOne() throws Exception {
    String capped =
        TestZones.CONFIG
            .replace("maxTcpConnections: 64", "maxTcpConnections: 2")
            .replace("tcpIdleTimeout: 500ms", "tcpIdleTimeout: 1h");
    List<Socket> open = new ArrayList<>();
    try (TestServer small = TestServer.start(capped)) {
      for (int i = 0; i < 2; i++) {
        Socket s = small.tcp();
        open.add(s);
        TestServer.writeFrame(s, query("www.example.test.", Type.A).toWire());
        assertEquals(Rcode.NOERROR, new Message(TestServer.readFrame(s)).getRcode());
      }
      try (Socket third = small.tcp()) {
        TestServer.writeFrame(third, query("www.example.test.", Type.A).toWire());
        assertEquals(Rcode.NOERROR, new Message(TestServer.readFrame(third)).getRcode());
        open.get(0).setSoTimeout(5000);
        assertEquals(-1, open.get(0).getInputStream().read(), "first connection closed");
        TestServer.writeFrame(open.get(1), query("www.example.test.", Type.A).toWire());
        assertEquals(Rcode.NOERROR, new Message(TestServer.readFrame(open.get(1))).getRcode());
        assertEquals(2, small.node.server().openTcpConnections());
        assertEquals(1, small.node.server().evictedTcpConnections());
      }
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  @Test
  void tcpLengthPrefixLongerThanTheDataWaitsThenTimesOut() throws Exception {
    try (Socket s = server.tcp()) {
      s.getOutputStream().write(new byte[] {0x01, 0x00, 1, 2, 3});
      s.setSoTimeout(5000);
      assertEquals(-1, s.getInputStream().read());
    }
  }
}
