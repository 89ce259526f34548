package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

/** The name table the responder finds static answers in, by the question's bytes as sent. */
class WireNamesTest {
  private static WireNames<String> table(String... names) throws Exception {
    Map<Name, String> m = new HashMap<>();
    for (String n : names) {
      m.put(Name.fromString(n), n);
    }
    return WireNames.of(m);
  }

  /** Looks {@code name} up as it would sit in a packet, after {@code pad} bytes of header. */
  private static String find(WireNames<String> t, String name, int pad) throws Exception {
    byte[] wire = Name.fromString(name).toWire();
    byte[] packet = new byte[pad + wire.length + 7];
    System.arraycopy(wire, 0, packet, pad, wire.length);
    return t.get(packet, pad, wire.length, WireNames.hash(packet, pad, wire.length));
  }

  @Test
  void findsEveryNameInAnyLetterCaseAndNothingElse() throws Exception {
    String[] names = new String[300];
    for (int i = 0; i < names.length; i++) {
      names[i] = "host-" + i + ".Example.TEST.";
    }
    WireNames<String> t = table(names);
    for (String n : names) {
      assertEquals(n, find(t, n.toLowerCase(java.util.Locale.ROOT), 12));
      assertEquals(n, find(t, n.toUpperCase(java.util.Locale.ROOT), 3));
      assertEquals(n, t.get(Name.fromString(n)));
    }
    assertNull(find(t, "host-300.example.test.", 12));
    assertNull(find(t, "host-1.example.test.x.", 12));
    assertNull(find(t, "host-1.example.tes.", 12));
    // Same letters, other label boundaries: a different name.
    assertNull(find(t, "host-1example.test.", 12));
  }

  @Test
  void anEmptyTableFindsNothing() throws Exception {
    assertNull(find(table(), "example.test.", 12));
    assertEquals(
        WireNames.hash(new byte[] {3, 'W', 'w', 'W', 0}, 0, 5),
        WireNames.hash(new byte[] {3, 'w', 'W', 'w', 0}, 0, 5));
  }
}
