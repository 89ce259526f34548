package io.sluice.dns.it;

import io.netty.channel.unix.Socket;
import io.sluice.dns.server.InheritedSockets;
import java.util.List;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Run by {@link OversizeReplyTest} inside a network namespace of its own whose loopback has an MTU
 * of 1500: starts a node with a 4096-byte UDP size, asks for an answer larger than that MTU and for
 * a small one over UDP, and exits 0 when both come back whole and the socket still sets the
 * don't-fragment bit afterwards; else prints why and exits 1.
 */
final class OversizeReplyProbe {
  /** Twelve TXT strings of 200 bytes: about 2.5 KB of answer, more than a 1500-byte MTU holds. */
  static final int STRINGS = 12;

  private OversizeReplyProbe() {}

  public static void main(String[] args) throws Exception {
    StringBuilder records = new StringBuilder();
    for (int i = 0; i < STRINGS; i++) {
      records.append("      - { name: wide, type: TXT, data: '\"").append(i + 10);
      records.append("x".repeat(198)).append("\"' }\n");
    }
    String mail = "      - { name: mail, type: A, data: 192.0.2.25 }\n";
    String yaml =
        TestZones.CONFIG
            .replace("udpPayloadSize: 1232", "udpPayloadSize: 4096")
            .replace(mail, mail + records);
    try (TestServer server = TestServer.start(yaml)) {
      if (!server.node.server().nativeUdpLoop()) {
        fail("the native UDP loop did not start");
      }
      Message wide = ask(server, "wide.example.test.", Type.TXT);
      int answers = wide.getSection(Section.ANSWER).size();
      if (wide.getHeader().getFlag(Flags.TC) || answers != STRINGS) {
        fail("the large answer came back with " + answers + " of " + STRINGS + " records: " + wide);
      }
      Message small = ask(server, "www.example.test.", Type.A);
      if (small.getRcode() != Rcode.NOERROR || small.getSection(Section.ANSWER).size() != 2) {
        fail("the small answer after it: " + small);
      }
      List<InheritedSockets.Socket> udp =
          server.node.server().listeningSockets().stream()
              .filter(s -> s.kind() == InheritedSockets.Kind.DNS_UDP)
              .toList();
      for (InheritedSockets.Socket s : udp) {
        int mode = new Socket(s.fd()).getIntOpt(0, 10);
        if (mode != 3) {
          fail("IP_MTU_DISCOVER of " + s.address() + " after the large answer: " + mode);
        }
      }
      System.out.println("oversize probe: " + answers + " records whole, then a small answer");
    }
    System.exit(0);
  }

  private static Message ask(TestServer server, String name, int type) throws Exception {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    q.addRecord(new OPTRecord(4096, 0, 0), Section.ADDITIONAL);
    byte[] reply = server.udp(q.toWire(), 3000);
    if (reply == null) {
      fail("no UDP reply to " + name + " within 3 s");
    }
    return new Message(reply);
  }

  private static void fail(String why) {
    System.out.println("oversize probe failed: " + why);
    System.exit(1);
  }
}
