package io.sluice.dns.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The serial rule in RFC 1982 arithmetic, wrap-around included. */
class SerialRuleTest {

  @Test
  void aNewerConfiguredSerialWinsElseTheLastOneAdvancesOnChange() {
    assertEquals(10, TransferZones.next(10, 7, false));
    assertEquals(10, TransferZones.next(10, 7, true));
    assertEquals(8, TransferZones.next(7, 7, false));
    assertEquals(7, TransferZones.next(7, 7, true));
    assertEquals(9, TransferZones.next(3, 8, false)); // an older configured serial never goes back
    assertEquals(8, TransferZones.next(3, 8, true));
  }

  @Test
  void serialsWrapAsRfc1982Says() {
    assertEquals(0, TransferZones.next(0xfffffff0L, 0xffffffffL, false)); // last + 1 wraps to 0
    assertEquals(5, TransferZones.next(5, 0xffffffffL, false)); // 5 is newer than 2^32 - 1
    assertTrue(TransferZones.newer(0, 0xffffffffL));
    assertTrue(TransferZones.newer(5, 0xfffffff0L));
    assertFalse(TransferZones.newer(0xfffffff0L, 5));
    assertFalse(TransferZones.newer(7, 7));
    // Two serials exactly 2^31 apart are unordered: neither is newer, so the last one advances.
    assertFalse(TransferZones.newer(0x80000000L, 0));
    assertEquals(1, TransferZones.next(0x80000000L, 0, false));
  }
}
