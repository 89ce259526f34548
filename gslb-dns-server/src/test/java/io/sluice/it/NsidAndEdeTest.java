package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.ExtendedErrorCodeOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSIDOption;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * NSID (RFC 5001), unknown EDNS options and Extended DNS Errors (RFC 8914), asked of a whole node
 * over real UDP and TCP sockets with dnsjava; the service outage is a real health verdict, so the
 * SERVFAIL comes from the production planner's last resort.
 */
class NsidAndEdeTest {
  private static final String NSID = "ns1-fra";

  @TempDir static Path dir;
  private static LiveNode node;

  @BeforeAll
  static void start() throws Exception {
    StringBuilder big = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      big.append(i == 0 ? "" : ", ").append("'\"padding record ").append(i).append(" xxxxxxxx\"'");
    }
    String yaml =
        """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          nsid: "%s"
        pools:
          p:
            endpoints:
              - { name: e1, address: 198.51.100.1 }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1 }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: www, type: A, data: 192.0.2.80 }
              - { name: big, type: TXT, data: [%s] }
            services:
              - { name: app, ttl: 30, pools: [p], failOpen: false,
                  lastResort: { action: servfail } }
        """
            .formatted(NSID, big);
    node = LiveNode.start(dir, yaml);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static Message ask(String name, int type, int dclass, boolean tcp, EDNSOption... opts)
      throws Exception {
    return ask(name, type, dclass, tcp, 1232, opts);
  }

  private static Message ask(
      String name, int type, int dclass, boolean tcp, int payload, EDNSOption... opts)
      throws Exception {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, dclass));
    if (payload > 0) {
      q.addRecord(new OPTRecord(payload, 0, 0, 0, List.of(opts)), Section.ADDITIONAL);
    }
    SimpleResolver r = node.resolver(tcp);
    // The resolver must send the query as built: no OPT of its own, no retry over TCP on TC.
    r.setEDNS(-1);
    r.setIgnoreTruncation(true);
    return r.send(q);
  }

  /** A query with EDNS version 1, sent over UDP as built. */
  private static Message askVersion1(String name, EDNSOption... opts) throws Exception {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN));
    q.addRecord(new OPTRecord(1232, 0, 1, 0, List.of(opts)), Section.ADDITIONAL);
    byte[] wire = q.toWire();
    try (DatagramSocket s = new DatagramSocket()) {
      s.setSoTimeout(3000);
      s.send(
          new DatagramPacket(wire, wire.length, InetAddress.getLoopbackAddress(), node.dnsPort()));
      byte[] buf = new byte[65535];
      DatagramPacket reply = new DatagramPacket(buf, buf.length);
      s.receive(reply);
      return new Message(Arrays.copyOf(buf, reply.getLength()));
    }
  }

  /** An AXFR query over a plain TCP socket (dnsjava's resolver treats AXFR apart). */
  private static Message axfr(String zone) throws Exception {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(zone), Type.AXFR, DClass.IN));
    q.addRecord(new OPTRecord(1232, 0, 0, 0), Section.ADDITIONAL);
    byte[] wire = q.toWire();
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), node.dnsPort())) {
      s.setSoTimeout(3000);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeShort(wire.length);
      out.write(wire);
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] reply = new byte[in.readUnsignedShort()];
      in.readFully(reply);
      return new Message(reply);
    }
  }

  private static String nsid(Message m) {
    OPTRecord opt = m.getOPT();
    assertNotNull(opt, "the response has an OPT record");
    List<EDNSOption> o = opt.getOptions(EDNSOption.Code.NSID);
    if (o.isEmpty()) {
      return null;
    }
    byte[] wire = o.get(0).toWire(); // code, length, data
    return new String(wire, 4, wire.length - 4, StandardCharsets.UTF_8);
  }

  private static ExtendedErrorCodeOption ede(Message m) {
    OPTRecord opt = m.getOPT();
    assertNotNull(opt, "the response has an OPT record");
    List<EDNSOption> o = opt.getOptions(EDNSOption.Code.EDNS_EXTENDED_ERROR);
    assertTrue(o.size() <= 1, "at most one EDE: " + o);
    return o.isEmpty() ? null : (ExtendedErrorCodeOption) o.get(0);
  }

  @Test
  void nsidIsSentOnlyWhenAsked() throws Exception {
    for (boolean tcp : new boolean[] {false, true}) {
      Message asked = ask("www.example.test.", Type.A, DClass.IN, tcp, new NSIDOption(new byte[0]));
      assertEquals(Rcode.NOERROR, asked.getRcode());
      assertEquals(NSID, nsid(asked));
      assertEquals(1, asked.getSection(Section.ANSWER).size());

      assertNull(nsid(ask("www.example.test.", Type.A, DClass.IN, tcp)), "not asked: no NSID");
      // RFC 5001 §2.1: a request carries an empty option; one with data is not a request.
      NSIDOption withData = new NSIDOption(new byte[] {1, 2});
      assertNull(nsid(ask("www.example.test.", Type.A, DClass.IN, tcp, withData)));
      assertNull(ask("www.example.test.", Type.A, DClass.IN, tcp, 0).getOPT(), "no EDNS: no OPT");
    }
  }

  @Test
  void nsidIsInEveryKindOfResponse() throws Exception {
    NSIDOption want = new NSIDOption(new byte[0]);
    Message nx = ask("nope.example.test.", Type.A, DClass.IN, false, want);
    assertEquals(Rcode.NXDOMAIN, nx.getRcode());
    assertEquals(NSID, nsid(nx));

    Message refused = ask("www.example.org.", Type.A, DClass.IN, false, want);
    assertEquals(Rcode.REFUSED, refused.getRcode());
    assertEquals(NSID, nsid(refused));

    Message truncated = ask("big.example.test.", Type.TXT, DClass.IN, false, 512, want);
    assertTrue(truncated.getHeader().getFlag(Flags.TC), "the TXT RRset does not fit in 512");
    assertEquals(NSID, nsid(truncated));

    // A question of type OPT is FORMERR, but the query's own OPT was sound: it is answered.
    Message formerr = ask("www.example.test.", Type.OPT, DClass.IN, false, want);
    assertEquals(Rcode.FORMERR, formerr.getRcode());
    assertEquals(NSID, nsid(formerr));

    Message badvers = askVersion1("www.example.test.", want);
    assertEquals(Rcode.BADVERS, badvers.getRcode());
    assertEquals(NSID, nsid(badvers));

    node.setVerdict(Verdict.DOWN, "p/e1");
    Message servfail = ask("app.example.test.", Type.A, DClass.IN, false, want);
    assertEquals(Rcode.SERVFAIL, servfail.getRcode());
    assertEquals(NSID, nsid(servfail));
    node.setVerdict(Verdict.UP, "p/e1");
    assertEquals(Rcode.NOERROR, ask("app.example.test.", Type.A, DClass.IN, false).getRcode());
  }

  @Test
  void unknownOptionsAreIgnored() throws Exception {
    // dig +ednsopt=65001:abcd
    EDNSOption unknown = new GenericEDNSOption(65001, new byte[] {(byte) 0xab, (byte) 0xcd});
    for (boolean tcp : new boolean[] {false, true}) {
      Message m = ask("www.example.test.", Type.A, DClass.IN, tcp, unknown);
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals(List.of("192.0.2.80"), LiveNode.addresses(m), "answered as without the option");
      assertEquals(List.of(), m.getOPT().getOptions(), "the unknown option is not echoed");
    }
  }

  @Test
  void refusalsSayWhy() throws Exception {
    ExtendedErrorCodeOption outside = ede(ask("www.example.org.", Type.A, DClass.IN, false));
    assertNotNull(outside);
    assertEquals(ExtendedErrorCodeOption.NOT_AUTHORITATIVE, outside.getErrorCode());

    Message axfr = axfr("example.test.");
    assertEquals(Rcode.REFUSED, axfr.getRcode());
    assertEquals(ExtendedErrorCodeOption.PROHIBITED, ede(axfr).getErrorCode());

    Message classAny = ask("www.example.test.", Type.A, DClass.ANY, false);
    assertEquals(Rcode.REFUSED, classAny.getRcode());
    assertEquals(ExtendedErrorCodeOption.PROHIBITED, ede(classAny).getErrorCode());

    // Answers carry no EDE, and a query without OPT gets none (RFC 8914 §3).
    assertNull(ede(ask("www.example.test.", Type.A, DClass.IN, false)));
    Message noEdns = ask("www.example.org.", Type.A, DClass.IN, false, 0);
    assertEquals(Rcode.REFUSED, noEdns.getRcode());
    assertNull(noEdns.getOPT());
  }

  @Test
  void aLastResortServfailNamesTheService() throws Exception {
    node.setVerdict(Verdict.DOWN, "p/e1");
    try {
      List<Integer> codes = new ArrayList<>();
      for (boolean tcp : new boolean[] {false, true}) {
        Message m = ask("app.example.test.", Type.A, DClass.IN, tcp);
        assertEquals(Rcode.SERVFAIL, m.getRcode());
        ExtendedErrorCodeOption e = ede(m);
        assertNotNull(e, "a SERVFAIL says why");
        codes.add(e.getErrorCode());
        assertEquals("no usable pool for app.example.test.", e.getText());
      }
      assertEquals(List.of(ExtendedErrorCodeOption.OTHER, ExtendedErrorCodeOption.OTHER), codes);
      assertNull(ask("app.example.test.", Type.A, DClass.IN, false, 0).getOPT());
    } finally {
      node.setVerdict(Verdict.UP, "p/e1");
    }
  }
}
