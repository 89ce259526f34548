package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xbill.DNS.Master;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * The fast reader of plain master files reads exactly what dnsjava's {@code Master} reads (owner
 * spelling and shared owner objects, TTL, class, data, order), and gives every file it does not
 * handle back (null) instead of reading it differently.
 */
class PlainMasterFileTest {
  private static final Name ORIGIN = Name.fromConstantString("example.test.");

  private static List<Record> master(String text) throws Exception {
    List<Record> out = new ArrayList<>();
    try (Master m =
        new Master(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), ORIGIN, 300)) {
      m.disableIncludes(true);
      Record r;
      while ((r = m.nextRecord()) != null) {
        out.add(r);
      }
    }
    return out;
  }

  private static List<Record> plain(String text) {
    return PlainMasterFile.read(text.getBytes(StandardCharsets.UTF_8), ORIGIN, 300);
  }

  /** How a record reads back: every field, the owner as spelled. */
  private static String spelled(Record r) {
    return r.getName() + " " + r.getTTL() + " " + r.getDClass() + " " + r.getType() + " " + r;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "h0 IN A 10.0.0.0\nh1 IN A 10.0.0.1\n",
        "h0 IN A 10.0.0.0", // no newline at the end
        "www 60 IN A 192.0.2.1\nwww IN 60 AAAA 2001:db8::1\nWWW A 192.0.2.2\nwww TXT \"a;b\" ; c\n",
        "@ 3600 IN SOA ns1 hostmaster 5 7200 1800 1209600 60\n@ NS ns1\nns1 A 192.0.2.53\n",
        "$TTL 1h\na A 192.0.2.1\n$ttl 120\nb 1h30m A 192.0.2.2\nc 2W IN A 192.0.2.3\n",
        "$ORIGIN sub.example.test.\nx A 192.0.2.1\n$ORIGIN other\ny A 192.0.2.2\n",
        "a A 192.0.2.1\n  AAAA 2001:db8::2\n\tTXT \"x\"\n   \n  ; note\n; comment\n\nb A 192.0.2.3\n",
        "a\tIN\tA\t192.0.2.1\r\nb IN A 192.0.2.2\r\n",
        "* A 192.0.2.9\n_sip._tcp SRV 0 5 5060 sip\nmail MX 10 mail.example.test.\nalias CNAME www\n",
        "abs.example.test. A 192.0.2.1\nother.test. A 192.0.2.2\nIN A 192.0.2.3\n",
        "n 10 CH A 192.0.2.1\nm CLASS1 A 192.0.2.2\nk TYPE1 192.0.2.3\nj A 192.0.2.4 ; trailing\n",
        "t TXT \"v=spf1 ip4:10.0.0.0/8 -all\" \"second\"\nd DS 60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118\n",
        // TTLs read in place and by TTL.parseTTL: leading zeros, nine and ten digits, clamped.
        "a 007 A 192.0.2.1\nb 999999999 A 192.0.2.2\nc 2147483648 A 192.0.2.3\nd 0 in a 192.0.2.4\n",
        // Addresses read in place and by Address.toByteArray.
        "a A 0.0.0.0\nb A 255.255.255.255\nc A 10.0.0.1\nd iN aAaA ::ffff:192.0.2.1\ne Aaaa ::\n",
        // Names, numbers and strings of the common types, built without dnsjava's tokenizer.
        "a CNAME @\nb cname x.other.test. ; c\nc NS ns1\nd PTR host.example.test.\ne DNAME other.\n",
        "m MX 0 @\nn MX 65535 mail\no mx 010 mail ; c\np 60 IN MX 5 mail.other.test.\n",
        "_s._tcp SRV 0 0 0 .\n_t._udp SRV 10 20 5060 sip.example.test.\n_u SRV 65535 65535 1 h\n",
        "t TXT \"\"\nu TXT a b c\nv TXT \"a b\" c \"d;e\"\t\"\"\nw txt \"x\"y\nx TXT \"a\";c\ny TXT \"a\" ; c\n",
        // Forms the fast path leaves to dnsjava's parser, which reads them.
        "a MX 0000000000010 mail\nb CNAME x;c\nc TXT a;b\nd NS ns1;\n",
      })
  void readsWhatMasterReads(String text) throws Exception {
    assertReadsAsMaster(text);
  }

  @org.junit.jupiter.api.Test
  void readsTxtStringsOfTheLongestLengthAndGivesBackLongerOnes() throws Exception {
    assertReadsAsMaster("z TXT \"" + "x".repeat(255) + "\" " + "y".repeat(255) + "\n");
    assertNull(plain("a TXT \"" + "x".repeat(256) + "\"\n"));
    assertNull(plain("a TXT " + "x".repeat(256) + "\n"));
  }

  private static void assertReadsAsMaster(String text) throws Exception {
    List<Record> expected = master(text);
    List<Record> got = plain(text);
    assertNotNull(got, "a plain file is read without Master");
    assertEquals(
        expected.stream().map(PlainMasterFileTest::spelled).toList(),
        got.stream().map(PlainMasterFileTest::spelled).toList());
    for (int i = 1; i < got.size(); i++) {
      assertEquals(
          expected.get(i).getName() == expected.get(i - 1).getName(),
          got.get(i).getName() == got.get(i - 1).getName(),
          "record " + i + " shares its owner with the one before as Master's does");
    }
  }

  @org.junit.jupiter.api.Test
  void readsRandomMixesOfPlainLinesAsMasterDoes() throws Exception {
    String[] owners = {"a", "A", "b.sub", "B.Sub", "@", "x.example.test.", "*.w", "_t._tcp"};
    String[] heads = {"", "60 ", "IN ", "60 IN ", "IN 60 ", "1h ", "1H30m IN "};
    String[] data = {
      "A 192.0.2.1",
      "a 10.1.2.3",
      "AAAA 2001:db8::5",
      "TXT \"x ; y\"",
      "MX 5 mail",
      "CNAME tgt",
      "TXT plain ; comment",
      "A 198.51.100.7 ; c",
      "NS ns1.example.test.",
      "SRV 1 2 3 t",
      "PTR p.example.test.",
      "TXT \"\" u \"v w\"",
      "DNAME d.test.",
      "MX 0 @"
    };
    java.util.Random random = new java.util.Random(7);
    for (int file = 0; file < 200; file++) {
      StringBuilder text = new StringBuilder();
      boolean owned = false;
      for (int line = 0; line < 40; line++) {
        int pick = random.nextInt(20);
        if (pick == 0) {
          text.append("$TTL ").append(random.nextInt(5000)).append('\n');
        } else if (pick == 1) {
          text.append("; only a comment\n");
        } else if (pick == 2) {
          text.append('\n');
        } else {
          boolean inherit = owned && pick < 6;
          owned = true;
          text.append(inherit ? "\t" : owners[random.nextInt(owners.length)] + " ");
          text.append(heads[random.nextInt(heads.length)]);
          text.append(data[random.nextInt(data.length)]).append('\n');
        }
      }
      String t = text.toString();
      List<Record> expected = master(t);
      List<Record> got = plain(t);
      assertNotNull(got, t);
      assertEquals(
          expected.stream().map(PlainMasterFileTest::spelled).toList(),
          got.stream().map(PlainMasterFileTest::spelled).toList(),
          t);
    }
  }

  /**
   * Files much longer than the reader's slice: owners inherited, $ORIGIN and $TTL changed and
   * comments met on both sides of slice boundaries, after a heading of comments and directives.
   */
  @org.junit.jupiter.api.Test
  void readsFilesOfManySlicesAsMasterDoes() throws Exception {
    java.util.Random random = new java.util.Random(11);
    for (int file = 0; file < 4; file++) {
      StringBuilder text = new StringBuilder("; heading\n\n$TTL 600\n  ; indented comment\n");
      if (file % 2 == 1) {
        text.append("$ORIGIN sub.example.test.\n");
      }
      for (int line = 0; line < 6000; line++) {
        int pick = random.nextInt(60);
        if (pick == 0) {
          text.append("$ORIGIN o").append(random.nextInt(9)).append(".example.test.\n");
        } else if (pick == 1) {
          text.append("$TTL ").append(random.nextInt(5000)).append('\n');
        } else if (pick == 2) {
          text.append("; comment ").append(line).append("\n\n");
        } else if (pick < 12) {
          text.append("\tAAAA 2001:db8::").append(Integer.toHexString(line)).append('\n');
        } else {
          text.append("h").append(line).append(pick % 3 == 0 ? " 60 IN" : "").append(" A 10.0.");
          text.append(line / 256 % 256).append('.').append(line % 256).append('\n');
        }
      }
      String t = text.toString();
      assertTrue(t.length() > 5 * 16 * 1024, "the file spans several slices");
      assertReadsAsMaster(t);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "@ SOA ns1 hostmaster (\n 5 7200 1800 1209600 60 )\n",
        "a\\.b A 192.0.2.1\n",
        "$INCLUDE other.zone\n",
        "$GENERATE 1-3 h$ A 192.0.2.$\n",
        "caf\u00e9 A 192.0.2.1\n",
        "a A 192.0.2.256\n",
        "a A 192.0.2\n",
        "a A 192.0.2.1.5\n",
        "a A 192..2.1\n",
        "a A 1922.0.2.1\n",
        "a 4294967296 A 192.0.2.1\n",
        "a A 192.0.2.1 extra\n",
        "a BOGUS 1\n",
        "  A 192.0.2.1\n",
        "a A 192.0.2.1\rb A 192.0.2.2\n",
        "a MX ten mail\n",
        "\"q\" A 192.0.2.1\n",
        "$FOO bar\n",
        // Data errors of the common types, which Master reports with their lines.
        "a CNAME x y\n",
        "a CNAME x\"y\"\n",
        "a MX 65536 mail\n",
        "a MX -1 mail\n",
        "a SRV 1 2 mail\n",
        "a SRV 1 2 3 t extra\n",
        "a NS\n",
        "a TXT \"open\n",
      })
  void givesBackWhatItDoesNotHandle(String text) {
    assertNull(plain(text));
  }
}
