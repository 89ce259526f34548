package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

/** The node table finds every name, whatever its case, including names dnsjava hashes alike. */
class NodeTableTest {
  @Test
  void findsNamesThatShareTheirDnsjavaHash() throws Exception {
    Name a = Name.fromString("h10.example.test.");
    Name b = Name.fromString("h09.example.test.");
    assertEquals(a.hashCode(), b.hashCode(), "the case this table exists for");
    List<ZoneNode> nodes = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      Name n = Name.fromString("h" + i + ".example.test.");
      nodes.add(ZoneNode.empty(n, null));
    }
    nodes.add(ZoneNode.empty(b, "b.example.test."));
    NodeTable table = new NodeTable(nodes);
    assertEquals(5001, table.size());
    for (ZoneNode n : nodes) {
      assertSame(n, table.get(n.name()));
    }
    assertEquals("b.example.test.", table.get(Name.fromString("H09.Example.TEST.")).service());
    assertNull(table.get(Name.fromString("h5000.example.test.")));
    assertNull(table.get(Name.fromString("example.test.")));
    assertEquals(new HashSet<>(table.names()).size(), 5001);
    assertTrue(table.names().contains(Name.fromString("H4999.example.test.")));
  }

  @Test
  void aBuilderGrowsPastItsEstimateAndReplacesAPlaceholder() throws Exception {
    NodeTable.Builder b = new NodeTable.Builder(2);
    List<ZoneNode> nodes = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      ZoneNode n = ZoneNode.empty(Name.fromString("h" + i + ".example.test."), null);
      assertNull(b.putIfAbsent(n));
      nodes.add(n);
    }
    ZoneNode again = ZoneNode.empty(Name.fromString("H7.example.test."), null);
    assertSame(nodes.get(7), b.putIfAbsent(again));
    ZoneNode service = ZoneNode.empty(Name.fromString("h7.example.test."), "s.example.test.");
    b.replace(service);
    NodeTable table = b.build();
    assertEquals(3000, table.size());
    assertSame(service, table.get(Name.fromString("h7.example.test.")));
    for (int i = 8; i < 3000; i++) {
      assertSame(nodes.get(i), table.get(nodes.get(i).name()));
    }
  }

  @Test
  void lowerCasesEightBytesAtOnceExactlyAsOneByOne() {
    Random random = new Random(7);
    for (int v = 0; v < 256; v++) {
      for (int lane = 0; lane < 8; lane++) {
        long word = random.nextLong();
        word = (word & ~(0xffL << (lane * 8))) | ((long) v << (lane * 8));
        long expected = 0;
        for (int k = 0; k < 8; k++) {
          expected |= (long) NodeTable.lower((byte) (word >>> (k * 8))) << (k * 8);
        }
        assertEquals(expected, NodeTable.lower8(word), "byte " + v + " in lane " + lane);
      }
    }
  }

  @Test
  void aNameHashesAlikeInAnyCaseAndAnywhereInAPacket() throws Exception {
    Random random = new Random(11);
    StringBuilder label = new StringBuilder();
    for (int length = 1; length <= 60; length++) {
      label.append((char) ('a' + random.nextInt(26)));
      Name name = Name.fromString(label + ".Example.TEST.");
      byte[] canonical = name.toWireCanonical();
      int expected = NodeTable.hash(canonical, 0, canonical.length);
      assertEquals(expected, NodeTable.hash(name));
      byte[] upper = Name.fromString(name.toString().toUpperCase(Locale.ROOT)).toWire();
      for (int at : new int[] {0, 1, 7, 12}) {
        byte[] packet = new byte[at + upper.length + 9];
        random.nextBytes(packet);
        System.arraycopy(upper, 0, packet, at, upper.length);
        assertEquals(expected, NodeTable.hash(packet, at, upper.length), name + " at " + at);
      }
      // One letter changed, or one byte fewer: another hash.
      byte[] other = canonical.clone();
      other[1] = (byte) (other[1] == 'z' ? 'y' : other[1] + 1);
      assertTrue(expected != NodeTable.hash(other, 0, other.length), name.toString());
      assertTrue(expected != NodeTable.hash(canonical, 0, canonical.length - 1), name.toString());
    }
  }

  @Test
  void numberedNamesSpreadOverDistinctHashes() throws Exception {
    Set<Integer> hashes = new HashSet<>();
    int names = 200_000;
    for (int i = 0; i < names; i++) {
      hashes.add(NodeTable.hash(Name.fromString("h" + i + ".example.test.")));
    }
    // A good 32-bit hash gives about five collisions among 200,000 names.
    assertTrue(hashes.size() > names - 50, "distinct hashes: " + hashes.size());
  }

  @Test
  void findsAQuestionsBytesInASmallAndInALargeTable() throws Exception {
    for (int size : new int[] {100, NodeTable.KEYED_LIMIT + 1}) {
      List<ZoneNode> nodes = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        nodes.add(ZoneNode.empty(Name.fromString("n" + i + ".example.test."), null));
      }
      NodeTable table = new NodeTable(nodes);
      for (int i = 0; i < size; i += 97) {
        byte[] wire = Name.fromString("N" + i + ".Example.test.").toWire();
        byte[] packet = new byte[12 + wire.length + 4];
        System.arraycopy(wire, 0, packet, 12, wire.length);
        assertSame(
            nodes.get(i),
            table.get(packet, 12, wire.length, NodeTable.hash(packet, 12, wire.length)));
      }
      byte[] missing = Name.fromString("n" + size + ".example.test.").toWire();
      assertNull(table.get(missing, 0, missing.length, NodeTable.hash(missing, 0, missing.length)));
    }
  }
}
