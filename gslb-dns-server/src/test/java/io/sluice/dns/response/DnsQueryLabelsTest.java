package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.core.spi.DnsQueryLabels;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * The bounded metric labels keep the names dnsjava (and dig) print for every known type and rcode,
 * so dashboards built on the earlier labels keep working; everything else is {@code other}.
 */
class DnsQueryLabelsTest {
  @Test
  void knownTypesKeepTheirNamesAndTheRestAreOther() {
    int known = 0;
    for (int type = 0; type < 65536; type++) {
      String label = DnsQueryLabels.QTYPES.get(DnsQueryLabels.qtypeIndex(type));
      if (!label.equals(DnsQueryLabels.OTHER)) {
        assertEquals(Type.string(type), label, "type " + type);
        known++;
      }
    }
    assertEquals(DnsQueryLabels.QTYPES.size() - 2, known);
    assertEquals("", DnsQueryLabels.QTYPES.get(DnsQueryLabels.qtypeIndex(-1)));
    assertEquals("other", DnsQueryLabels.QTYPES.get(DnsQueryLabels.qtypeIndex(65280)));
  }

  @Test
  void rcodesKeepTheirNames() {
    for (int rcode = 0; rcode <= 16; rcode++) {
      assertEquals(
          Rcode.string(rcode), DnsQueryLabels.RCODES.get(DnsQueryLabels.rcodeIndex(rcode)));
    }
    assertEquals(
        "BADCOOKIE", DnsQueryLabels.RCODES.get(DnsQueryLabels.rcodeIndex(Rcode.BADCOOKIE)));
    assertEquals(
        "DROPPED", DnsQueryLabels.RCODES.get(DnsQueryLabels.rcodeIndex(DnsQueryLabels.DROPPED)));
  }
}
