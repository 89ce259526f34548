package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.Type;

/**
 * NOTIFY (RFC 1996) as a secondary's UDP socket receives it: sent at start and on each serial
 * change, signed with the zone's key, and sent again until it is answered.
 */
class NotifyTest {
  @TempDir Path dir;

  private String yaml(int secondary, String extra) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        stateDir: %s
        zones:
          - origin: xfr.test.
            soa: { mname: ns1.xfr.test., rname: h.xfr.test., serial: 5 }
            ns: [ns1.xfr.test.]
            transfer:
              tsig: { name: xfr-key }
              notify: ["127.0.0.1:%d"]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
        %s
        """
        .formatted(dir.resolve("state"), secondary, extra);
  }

  @Test
  void aSecondaryIsNotifiedAtStartAndOnEachChangeUntilItAnswers() throws Exception {
    TransferEvents events = new TransferEvents();
    try (DatagramSocket secondary = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        TestServer server = TestServer.start(yaml(secondary.getLocalPort(), ""), dir, events)) {
      secondary.setSoTimeout(15_000);
      TSIG key =
          new TSIG(
              TSIG.HMAC_SHA256,
              Name.fromConstantString("xfr-key."),
              Files.readString(dir.resolve("state/tsig-xfr-key.key")).strip());
      // At start: serial 5. Left unanswered, it comes again with the same serial.
      DatagramPacket first = receive(secondary);
      Message n1 = notifyOf(first, key, 5);
      DatagramPacket again = receive(secondary);
      Message n2 = notifyOf(again, key, 5);
      answer(secondary, again, n2);
      events.await("xfr.test. NOTIFY answered");
      assertTrue(n1.getHeader().getFlag(Flags.AA));

      // A reload that changes the zone: serial 6, announced at once.
      server.reload(
          yaml(secondary.getLocalPort(), "      - { name: www, type: A, data: 192.0.2.8 }"), dir);
      DatagramPacket changed = receive(secondary);
      answer(secondary, changed, notifyOf(changed, key, 6));
      events.await("xfr.test. NOTIFY answered", 2);
    }
  }

  private static DatagramPacket receive(DatagramSocket s) throws Exception {
    DatagramPacket p = new DatagramPacket(new byte[4096], 4096);
    s.receive(p);
    return p;
  }

  /** Checks {@code p} is a signed NOTIFY of xfr.test. with {@code serial}; returns it. */
  private static Message notifyOf(DatagramPacket p, TSIG key, long serial) throws Exception {
    byte[] wire = Arrays.copyOf(p.getData(), p.getLength());
    Message m = new Message(wire);
    assertEquals(Opcode.NOTIFY, m.getHeader().getOpcode());
    assertEquals(Type.SOA, m.getQuestion().getType());
    assertEquals(Name.fromConstantString("xfr.test."), m.getQuestion().getName());
    SOARecord soa = (SOARecord) m.getSection(Section.ANSWER).get(0);
    assertEquals(serial, soa.getSerial());
    assertNotNull(m.getTSIG(), "signed with the zone's key");
    assertEquals(Rcode.NOERROR, key.verify(m, wire, null));
    return m;
  }

  private static void answer(DatagramSocket s, DatagramPacket from, Message n) throws Exception {
    Message r = new Message(n.getHeader().getID());
    r.getHeader().setOpcode(Opcode.NOTIFY);
    r.getHeader().setFlag(Flags.QR);
    r.getHeader().setFlag(Flags.AA);
    r.addRecord(n.getQuestion(), Section.QUESTION);
    byte[] wire = r.toWire();
    s.send(new DatagramPacket(wire, wire.length, from.getSocketAddress()));
  }
}
