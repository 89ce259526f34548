package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.server.app.SluiceNode;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
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
 * The additional section over the wire: addresses of in-zone NS, MX and SRV targets, the addresses
 * a GSLB service used as a target would give the same client, optional data dropped before TC is
 * set, referral glue never dropped silently (RFC 9471), and minimal ANY at a name without data.
 */
class AdditionalSectionTest {
  private static SluiceNode node;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    StringBuilder records = new StringBuilder();
    for (int i = 1; i <= 12; i++) {
      records.append("      - { name: many, type: MX, data: \"%d h%d\" }\n".formatted(i, i));
      records.append("      - { name: h%d, type: A, data: 192.0.4.%d }\n".formatted(i, i));
      records.append(
          "      - { name: h%d, type: AAAA, data: \"2001:db8:4::%d\" }\n".formatted(i, i));
    }
    StringBuilder crowd = new StringBuilder();
    for (int i = 1; i <= 12; i++) {
      crowd.append("\"%d h%d\", ".formatted(i, i));
    }
    records.append("      - { name: crowd, type: MX, data: [%s\"99 app\"] }\n".formatted(crowd));
    for (int i = 1; i <= 40; i++) {
      records.append(
          "      - { name: big, type: TXT, data: '\"record %d of a large TXT RRset\"' }\n"
              .formatted(i));
    }
    records.append("      - { name: tobig, type: CNAME, data: big.example.test. }\n");
    for (int i = 1; i <= 24; i++) {
      records.append(
          "      - { name: deep, type: NS, data: ns%d.deep.example.test. }\n".formatted(i));
      records.append("      - { name: ns%d.deep, type: A, data: 192.0.5.%d }\n".formatted(i, i));
    }
    String yaml =
        """
        dns: { listen: [127.0.0.1], port: 0, threads: 1, udpPayloadSize: 1232 }
        pools:
          east: { endpoints: [ { name: e1, address: 198.51.100.1 } ] }
        zones:
          - origin: example.test.
            ttl: 3600
            soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1,
                   minimum: 120 }
            ns: [ns1.example.test., ns2.example.test.]
            records:
              - { name: "@", type: MX, data: ["10 mail", "20 mail", "30 app", "40 mx.example.net."] }
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: ns1, type: AAAA, data: "2001:db8::53" }
              - { name: ns2, type: A, data: 192.0.2.54 }
              - { name: mail, type: A, data: 192.0.2.25 }
              - { name: _svc._tcp, type: SRV, data: ["10 0 443 app", "20 0 443 sip"] }
              - { name: sip, type: AAAA, data: "2001:db8::60" }
              - { name: x.ent, type: A, data: 192.0.2.92 }
              - { name: "*.apps", type: A, data: 192.0.2.90 }
        %s
            services:
              - { name: app, ttl: 30, pools: [east] }
        """
            .formatted(records);
    SluiceConfig config = ConfigLoader.parse(yaml, "test.yaml", Path.of("."));
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    // The decision depends on the client, as a topology policy's would: 10/8 gets one address.
    AnswerPlanner byClient =
        (String service, AddressFamily family, ClientInfo client) -> {
          boolean ten = (client.address()[0] & 0xff) == 10;
          try {
            byte[] a =
                family == AddressFamily.V4
                    ? InetAddress.getByName(ten ? "198.51.100.10" : "198.51.100.20").getAddress()
                    : InetAddress.getByName(ten ? "2001:db8::10" : "2001:db8::20").getAddress();
            return Decision.answer(List.of(a), ten ? 25 : 35, 16, List.of("east"));
          } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
          }
        };
    node = SluiceNode.start(config, "test.yaml", store, byClient, GslbMetrics.NOOP);
    server = new TestServer(node);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static Message ask(String name, int type, int payload, String subnet, boolean tcp)
      throws Exception {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    if (payload > 0) {
      List<org.xbill.DNS.EDNSOption> options =
          subnet == null
              ? List.of()
              : List.of(new ClientSubnetOption(24, InetAddress.getByName(subnet)));
      q.addRecord(new OPTRecord(payload, 0, 0, 0, options), Section.ADDITIONAL);
    }
    if (tcp) {
      try (var s = server.tcp()) {
        TestServer.writeFrame(s, q.toWire());
        return new Message(TestServer.readFrame(s));
      }
    }
    return new Message(server.udp(q.toWire()));
  }

  private static List<String> additional(Message m) {
    return TestServer.section(m, Section.ADDITIONAL);
  }

  @Test
  void nsAndMxTargetsInTheZoneComeWithTheirAddressesOnce() throws Exception {
    Message ns = ask("example.test.", Type.NS, 1232, null, false);
    assertEquals(
        Set.of(
            "ns1.example.test. 3600 A 192.0.2.53",
            "ns1.example.test. 3600 AAAA 2001:db8:0:0:0:0:0:53",
            "ns2.example.test. 3600 A 192.0.2.54"),
        Set.copyOf(additional(ns)));
    assertTrue(ns.getHeader().getFlag(Flags.AA));

    Message mx = ask("example.test.", Type.MX, 1232, "192.0.2.0", false);
    List<String> add = additional(mx);
    assertEquals(new HashSet<>(add).size(), add.size(), "nothing repeated: " + add);
    assertTrue(add.contains("mail.example.test. 3600 A 192.0.2.25"), add.toString());
    assertFalse(add.toString().contains("example.net"), "no data for targets outside the zone");
  }

  @Test
  void aGslbTargetGetsTheAddressesTheSameClientWouldGet() throws Exception {
    for (String subnet : new String[] {"10.1.2.0", "192.0.2.0"}) {
      Message direct = ask("app.example.test.", Type.A, 1232, subnet, false);
      Record a = direct.getSection(Section.ANSWER).get(0);
      String expected = "app.example.test. " + a.getTTL() + " A " + a.rdataToString();
      Message mx = ask("example.test.", Type.MX, 1232, subnet, false);
      assertTrue(additional(mx).contains(expected), subnet + ": " + additional(mx));
      Message srv = ask("_svc._tcp.example.test.", Type.SRV, 1232, subnet, false);
      List<String> add = additional(srv);
      assertTrue(add.contains(expected), subnet + ": " + add);
      assertTrue(
          add.stream().anyMatch(r -> r.startsWith("app.example.test. ") && r.contains("AAAA")));
      assertTrue(add.contains("sip.example.test. 3600 AAAA 2001:db8:0:0:0:0:0:60"), add.toString());
      // The answer now depends on the client, so the ECS scope says so.
      ClientSubnetOption ecs =
          (ClientSubnetOption)
              srv.getOPT().getOptions(org.xbill.DNS.EDNSOption.Code.CLIENT_SUBNET).get(0);
      assertEquals(16, ecs.getScopePrefixLength());
    }
  }

  @Test
  void optionalDataIsDroppedBeforeTcIsSet() throws Exception {
    Message full = ask("many.example.test.", Type.MX, 4096, null, false);
    assertEquals(24, additional(full).size());
    Message small = ask("many.example.test.", Type.MX, 0, null, false);
    assertFalse(small.getHeader().getFlag(Flags.TC), "additional data alone never truncates");
    assertEquals(12, small.getSection(Section.ANSWER).size());
    int kept = additional(small).size();
    assertTrue(kept > 0 && kept < 24, "some additional data fits 512 bytes, not all: " + kept);
  }

  @Test
  void aGslbTargetsAddressesThatDoNotFitAreLeftOutWhole() throws Exception {
    Message full = ask("crowd.example.test.", Type.MX, 4096, null, false);
    List<String> all = additional(full);
    assertEquals(26, all.size(), all.toString());
    String last = all.get(all.size() - 1);
    assertTrue(last.startsWith("app.example.test. ") && last.contains(" AAAA "), last);
    int size = full.toWire().length;
    assertTrue(size > 512, "the test needs an answer above the minimum UDP size: " + size);
    // One byte short: the service's AAAA record, the last additional RRset, no longer fits.
    Message cut = ask("crowd.example.test.", Type.MX, size - 1, null, false);
    assertFalse(cut.getHeader().getFlag(Flags.TC), "additional data alone never truncates");
    assertEquals(all.subList(0, all.size() - 1), additional(cut));
    assertEquals(size - 28, cut.toWire().length, "the AAAA record is gone, nothing else");
  }

  @Test
  void aTruncatedAnswerKeepsTheWholeRrsetsThatFit() throws Exception {
    Message m = ask("tobig.example.test.", Type.TXT, 0, null, false);
    assertTrue(m.getHeader().getFlag(Flags.TC));
    assertEquals(
        List.of("tobig.example.test. 3600 CNAME big.example.test."),
        TestServer.section(m, Section.ANSWER),
        "the CNAME fits, the TXT RRset does not and is not cut");
    Message big = ask("big.example.test.", Type.TXT, 0, null, false);
    assertTrue(big.getHeader().getFlag(Flags.TC));
    assertTrue(big.getSection(Section.ANSWER).isEmpty());
  }

  @Test
  void referralGlueThatDoesNotFitTruncates() throws Exception {
    Message udp = ask("host.deep.example.test.", Type.A, 0, null, false);
    assertTrue(udp.getHeader().getFlag(Flags.TC), "glue is never dropped silently (RFC 9471)");
    assertEquals(24, udp.getSection(Section.AUTHORITY).size(), "the NS RRset fits");
    int glue = additional(udp).size();
    assertTrue(glue > 0 && glue < 24, "the glue that fits is sent: " + glue);
    Message tcp = ask("host.deep.example.test.", Type.A, 0, null, true);
    assertFalse(tcp.getHeader().getFlag(Flags.TC));
    assertEquals(24, tcp.getSection(Section.AUTHORITY).size());
    assertEquals(24, additional(tcp).size());
    assertFalse(tcp.getHeader().getFlag(Flags.AA));
  }

  @Test
  void minimalAnyAtANameWithoutDataIsNodata() throws Exception {
    for (String name : new String[] {"ent.example.test.", "apps.example.test."}) {
      Message m = ask(name, Type.ANY, 1232, null, false);
      assertEquals(Rcode.NOERROR, m.getRcode(), name);
      assertTrue(m.getSection(Section.ANSWER).isEmpty(), name + ": " + m);
      assertEquals(Type.SOA, m.getSection(Section.AUTHORITY).get(0).getType(), name);
    }
    Message www = ask("x.ent.example.test.", Type.ANY, 1232, null, false);
    assertEquals(Type.HINFO, www.getSection(Section.ANSWER).get(0).getType());
  }
}
