package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.zone.Zone;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * A zone without wildcards, DNAMEs or delegations answers every name it does not have from one
 * NXDOMAIN per length of the name above the origin. Differential: the same random questions (names
 * of every length and letter case, every kind of question type and EDNS option) get byte-for-byte
 * the answer of a zone whose wildcard elsewhere keeps every negative answer on the per-name path;
 * and a name that an SOA name was compressed against never shares its answer.
 */
class SharedNegativeAnswersTest {
  private static final String ZONE =
      """
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test., serial: 7, minimum: 120 }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
            - { name: a.b.c, type: TXT, data: deep }
      """;
  private static final String WILDCARD = "      - { name: '*.wild', type: A, data: 192.0.2.99 }\n";
  private static final Set<String> EXISTING =
      Set.of("ns1", "www", "a.b.c", "b.c", "c", "wild", "*.wild");
  private static final int[] TYPES = {
    Type.A, Type.AAAA, Type.MX, Type.TXT, Type.NS, Type.SOA, Type.DS, Type.ANY, Type.CAA, Type.HTTPS
  };
  private static final char[] LETTERS =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-".toCharArray();

  /** A responder over its own store of {@code yaml}, and the zone data it serves. */
  private record Served(Responder responder, ServedZones zones, Zone zone) {
    static Served of(String yaml) throws Exception {
      SluiceConfig config = ConfigLoader.parse(yaml, "t.yaml", Path.of("."));
      ConfigPublisher publisher = new ConfigPublisher(List.of(ServedZones.compiler()));
      SnapshotStore store = new SnapshotStore(publisher.initial(config, "t.yaml"));
      ServedZones zones = store.current().artifacts().get(ServedZones.class);
      return new Served(
          new Responder(store, null, new AllEndpointsPlanner(store), GslbMetrics.NOOP),
          zones,
          zones.index().zones().get(0));
    }

    byte[] ask(byte[] query) {
      return responder.respond(
          query, query.length, InetAddress.getLoopbackAddress(), Transport.UDP);
    }

    boolean shares(int prefix) {
      return Responder.sharedNegative(zones, zone, prefix) != null;
    }
  }

  private static byte[] query(String name, int type, int edns, Random random) throws Exception {
    Message m = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    m.getHeader().setID(random.nextInt(65536));
    if (edns > 0) {
      List<EDNSOption> options = new ArrayList<>();
      switch (edns) {
        case 3 -> options.add(new ClientSubnetOption(24, InetAddress.getByName("198.51.100.0")));
        case 4 -> options.add(new GenericEDNSOption(EDNSOption.Code.NSID, new byte[0]));
        case 5 -> options.add(new CookieOption(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        default -> {}
      }
      int flags = edns == 2 ? ExtendedFlags.DO : 0;
      m.addRecord(new OPTRecord(1232, 0, 0, flags, options), Section.ADDITIONAL);
    }
    return m.toWire();
  }

  /** A random name below the zone that it does not have: 1 to 4 labels of 1 to 20 characters. */
  private static String missingName(Random random) {
    while (true) {
      StringBuilder b = new StringBuilder();
      int labels = 1 + random.nextInt(4);
      for (int l = 0; l < labels; l++) {
        int len = 1 + random.nextInt(20);
        for (int i = 0; i < len; i++) {
          b.append(LETTERS[random.nextInt(LETTERS.length)]);
        }
        b.append('.');
      }
      String relative = b.substring(0, b.length() - 1).toLowerCase(java.util.Locale.ROOT);
      boolean taken = false;
      for (String e : EXISTING) {
        taken |= relative.equals(e) || relative.endsWith("." + e);
      }
      if (!taken && !relative.startsWith("-")) {
        return b + "example.test.";
      }
    }
  }

  @Test
  void missingNamesGetTheBytesOfThePerNameAnswer() throws Exception {
    Served shared = Served.of(ZONE);
    Served perName = Served.of(ZONE + WILDCARD);
    assertTrue(shared.zone().plainNegatives());
    assertTrue(!perName.zone().plainNegatives(), "a wildcard keeps the per-name path");
    Random random = new Random(20261201);
    Set<Integer> prefixes = new HashSet<>();
    for (int i = 0; i < 3000; i++) {
      String name = missingName(random);
      byte[] q = query(name, TYPES[random.nextInt(TYPES.length)], random.nextInt(6), random);
      byte[] expected = perName.ask(q);
      byte[] got = shared.ask(q);
      if (name.toLowerCase(java.util.Locale.ROOT).endsWith(".h.example.test.")) {
        // Per name, the SOA's rname h.example.test. points into this question; shared, it is
        // written as the label h and a pointer to the origin: two bytes more, the same records.
        assertSameMessage(expected, got, name);
      } else {
        assertArrayEquals(expected, got, name);
      }
      assertEquals(Rcode.NXDOMAIN, new Message(got).getRcode(), name);
      prefixes.add(Name.fromString(name).length() - shared.zone().originWireLength());
    }
    // Every length asked is answered from its shared answer by now; the wildcard zone has none.
    for (int p : prefixes) {
      assertTrue(shared.shares(p), "prefix " + p);
      assertTrue(!perName.shares(p), "prefix " + p);
    }
  }

  /** The same header and records, TTLs included, however the names were compressed. */
  private static void assertSameMessage(byte[] expected, byte[] got, String what) throws Exception {
    Message e = new Message(expected);
    Message g = new Message(got);
    assertEquals(e.getHeader().toString(), g.getHeader().toString(), what);
    for (int section : new int[] {Section.QUESTION, Section.ANSWER, Section.AUTHORITY}) {
      List<Record> er = e.getSection(section);
      List<Record> gr = g.getSection(section);
      assertEquals(er, gr, what);
      for (int i = 0; i < er.size(); i++) {
        assertEquals(er.get(i).getTTL(), gr.get(i).getTTL(), what);
      }
    }
    assertEquals(String.valueOf(e.getOPT()), String.valueOf(g.getOPT()), what);
  }

  @Test
  void aNameAnSoaNameWasCompressedAgainstIsNotShared() throws Exception {
    Served s = Served.of(ZONE);
    Random random = new Random(1);
    // The SOA's rname is h.example.test.: asked for that name, it points at the question.
    byte[] h = s.ask(query("h.example.test.", Type.A, 0, random));
    assertEquals(Rcode.NXDOMAIN, new Message(h).getRcode());
    assertNull(Responder.sharedNegative(s.zones(), s.zone(), 2), "compressed against the name");
    byte[] x = s.ask(query("x.example.test.", Type.A, 0, random));
    assertNotNull(Responder.sharedNegative(s.zones(), s.zone(), 2));
    for (byte[] answer : new byte[][] {x, s.ask(query("h.example.test.", Type.A, 0, random))}) {
      Message m = new Message(answer);
      SOARecord soa = (SOARecord) m.getSection(Section.AUTHORITY).get(0);
      assertEquals(Name.fromString("h.example.test."), soa.getAdmin());
      assertEquals(Name.fromString("ns1.example.test."), soa.getHost());
      assertEquals(Name.fromString("example.test."), soa.getName());
      assertEquals(120, soa.getTTL());
    }
  }

  @Test
  void anEmptyNonTerminalOfTheSameLengthIsStillNoData() throws Exception {
    Served s = Served.of(ZONE);
    Random random = new Random(2);
    // zz1 and b.c are both four bytes above the origin.
    s.ask(query("zz1.example.test.", Type.A, 0, random));
    s.ask(query("zz2.example.test.", Type.A, 0, random));
    assertNotNull(Responder.sharedNegative(s.zones(), s.zone(), 4));
    Message m = new Message(s.ask(query("b.c.example.test.", Type.A, 0, random)));
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertTrue(m.getSection(Section.ANSWER).isEmpty());
    assertEquals(Type.SOA, m.getSection(Section.AUTHORITY).get(0).getType());
    Message www = new Message(s.ask(query("www.example.test.", Type.A, 0, random)));
    assertEquals("192.0.2.80", www.getSection(Section.ANSWER).get(0).rdataToString());
  }
}
