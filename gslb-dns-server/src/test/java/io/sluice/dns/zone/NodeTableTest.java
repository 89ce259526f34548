package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
}
