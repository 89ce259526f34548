package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.core.config.ConfigLoader;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneCompiler;
import io.sluice.dns.zone.ZoneNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * The direct encoding of a plain RRset answer, used on the first question for most names of a large
 * zone, is byte for byte what the general encoder makes of the same resolution.
 */
class PlainAnswerTest {
  @TempDir Path dir;

  @Test
  void plainAnswersAreTheBytesTheGeneralEncoderWrites() throws Exception {
    Files.writeString(
        dir.resolve("z.zone"),
        """
        $TTL 300
        @      IN SOA  ns1.example.test. h.example.test. 5 7200 1800 1209600 60
        ns1    IN A    192.0.2.53
        Multi  IN A    192.0.2.2
        Multi  IN A    192.0.2.1
        multi  IN AAAA 2001:db8::1
        t      60 IN TXT  "one" "two"
        t      IN TXT  "three"
        alias  IN CNAME multi.example.test.
        """);
    Zone z =
        ZoneCompiler.compile(
                ConfigLoader.parse(
                    """
                    zones:
                      - origin: example.test.
                        file: z.zone
                        ns: [ns1.example.test.]
                    """,
                    "t.yaml",
                    dir),
                "t.yaml")
            .zones()
            .get(0);
    int checked = 0;
    for (String owner : List.of("multi", "t", "ns1")) {
      ZoneNode node = z.node(Name.fromString(owner + ".example.test."));
      for (int type : node.types()) {
        List<Record> plain = z.plainRRset(node, type);
        assertNotNull(plain, owner + " " + Type.string(type));
        byte[] general =
            AnswerEncoder.encode(node.name(), type, DClass.IN, z.resolve(node.name(), type)).wire;
        assertArrayEquals(
            general,
            AnswerEncoder.plain(node.name(), type, plain).wire,
            owner + " " + Type.string(type));
        checked++;
      }
    }
    assertEquals(4, checked);
    // A CNAME is followed: never a plain answer.
    assertNull(z.plainRRset(z.node(Name.fromString("alias.example.test.")), Type.A));
  }
}
