package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

/** The compiler's table by owner keeps the order names came in and finds them in any case. */
class OwnerTableTest {
  @Test
  void keepsTheOrderGivenGrowsPastItsEstimateAndFindsNamesDnsjavaHashesAlike() throws Exception {
    OwnerTable t = new OwnerTable(2);
    int n = 5000;
    for (int i = 0; i < n; i++) {
      assertNull(t.putIfAbsent(Name.fromString("h" + i + ".example.test."), i));
    }
    Name h09 = Name.fromString("h09.example.test.");
    assertEquals(Name.fromString("h10.example.test.").hashCode(), h09.hashCode());
    assertNull(t.putIfAbsent(h09, "nine"));
    assertEquals(n + 1, t.size());

    assertEquals(7, t.putIfAbsent(Name.fromString("H7.Example.TEST."), "other"));
    t.put(Name.fromString("h7.example.test."), "seven");
    t.put(Name.fromString("new.example.test."), "last");
    assertEquals(n + 2, t.size());

    for (int i = 0; i < n; i++) {
      Name name = Name.fromString("h" + i + ".example.test.");
      assertEquals(name, t.name(i));
      assertEquals(i == 7 ? "seven" : i, t.value(i));
      assertEquals(NodeTable.hash(name), t.hash(i));
      assertEquals(i, t.indexOf(name));
      assertSame(t.value(i), t.get(name));
    }
    assertEquals("nine", t.get(Name.fromString("H09.example.test.")));
    assertEquals("last", t.value(n + 1));
    assertNull(t.get(Name.fromString("h5000.example.test.")));
    assertEquals(-1, t.indexOf(Name.fromString("example.test.")));
  }
}
