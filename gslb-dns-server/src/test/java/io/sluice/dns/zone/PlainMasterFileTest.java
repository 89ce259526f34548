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

  /** Reads {@code text} again after {@code before} was read, as a reload does. */
  private static PlainMasterFile.Lines reread(PlainMasterFile.Lines before, String text) {
    MasterFile old =
        MasterFile.of(
            java.nio.file.Path.of("zone"),
            new byte[32],
            ORIGIN,
            300,
            before.records().toArray(new Record[0]),
            before.keys(),
            null);
    return PlainMasterFile.read(
        text.getBytes(StandardCharsets.UTF_8),
        ORIGIN,
        300,
        OldRecords.of(old),
        java.util.function.UnaryOperator.identity());
  }

  private static PlainMasterFile.Lines lines(String text) {
    return PlainMasterFile.read(
        text.getBytes(StandardCharsets.UTF_8),
        ORIGIN,
        300,
        OldRecords.none(),
        java.util.function.UnaryOperator.identity());
  }

  /**
   * Read again with the previous content's records, a file gives exactly what a first read gives
   * (owners spelled and shared as Master's are), the old record itself for an unchanged line. The
   * traps: a line whose owner is inherited or shared from the line above, when that line changed;
   * an $ORIGIN or $TTL changed above unchanged lines.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "a A 192.0.2.1\n  A 192.0.2.2\n|b A 192.0.2.1\n  A 192.0.2.2\n",
        "www A 192.0.2.1\nWWW A 192.0.2.2\n|foo A 192.0.2.1\nWWW A 192.0.2.2\n",
        "foo A 192.0.2.1\nWWW A 192.0.2.2\n|www A 192.0.2.1\nWWW A 192.0.2.2\n",
        "Www A 192.0.2.1\nWWW A 192.0.2.2\n|www A 192.0.2.1\nWWW A 192.0.2.2\n",
        "$ORIGIN x.example.test.\nfoo A 192.0.2.1\n|$ORIGIN y.example.test.\nfoo A 192.0.2.1\n",
        "$ORIGIN x.example.test.\nfoo A 192.0.2.1\n|$ORIGIN X.example.test.\nfoo A 192.0.2.1\n",
        "$TTL 300\nfoo A 192.0.2.1\n|$TTL 600\nfoo A 192.0.2.1\n",
        "a A 192.0.2.1\nb A 192.0.2.2\n  A 192.0.2.3\n|a A 192.0.2.1\n  A 192.0.2.3\n",
        "a A 192.0.2.1\nb A 192.0.2.2\nc A 192.0.2.3\n|a A 192.0.2.1\nc A 192.0.2.3\n",
      })
  void readsAChangedFileAsAFirstReadDoes(String pair) throws Exception {
    String[] texts = pair.split("\\|");
    PlainMasterFile.Lines before = lines(texts[0]);
    PlainMasterFile.Lines again = reread(before, texts[1]);
    assertNotNull(again);
    assertReadsAsMaster(texts[1]);
    assertEquals(
        master(texts[1]).stream().map(PlainMasterFileTest::spelled).toList(),
        again.records().stream().map(PlainMasterFileTest::spelled).toList());
    assertEquals(again.records().size(), again.keys().length);
  }

  /** An unchanged file read again gives every old record itself, without parsing a line. */
  @org.junit.jupiter.api.Test
  void anUnchangedLineGivesTheOldRecordItself() {
    String text =
        "$TTL 60\na A 192.0.2.1\n  AAAA 2001:db8::1\nb MX 5 mail\nB TXT x\n; c\nc A 10.0.0.1\n";
    PlainMasterFile.Lines before = lines(text);
    PlainMasterFile.Lines again = reread(before, text);
    assertEquals(before.records().size(), again.records().size());
    for (int i = 0; i < before.records().size(); i++) {
      assertTrue(before.records().get(i) == again.records().get(i), "record " + i);
    }
    // One line changed: the others are still the old records, but for the changed one and the
    // next, whose owner B is the one above (shared with it, as Master does): both are read again.
    PlainMasterFile.Lines edited = reread(before, text.replace("b MX 5 mail", "b MX 6 mail"));
    for (int i = 0; i < before.records().size(); i++) {
      assertEquals(
          i != 2 && i != 3, before.records().get(i) == edited.records().get(i), "record " + i);
    }
    assertEquals(
        before.records().stream().map(PlainMasterFileTest::spelled).toList().subList(3, 5),
        edited.records().stream().map(PlainMasterFileTest::spelled).toList().subList(3, 5));
  }

  /**
   * Random files edited at random (lines changed, removed, inserted, their owners' case changed,
   * directives changed) and read again with the previous content's records give exactly what Master
   * reads from the edited file.
   */
  @org.junit.jupiter.api.Test
  void readsRandomlyEditedFilesAsMasterDoes() throws Exception {
    String[] owners = {"a", "A", "b", "B", "c.sub", "C.sub", "@", "x.example.test."};
    String[] data = {"A 192.0.2.1", "A 192.0.2.2", "AAAA 2001:db8::5", "MX 5 mail", "TXT t"};
    java.util.Random random = new java.util.Random(13);
    int reused = 0;
    for (int file = 0; file < 300; file++) {
      List<String> lines = new ArrayList<>();
      // The first line names its owner; edits leave it.
      lines.add(owners[random.nextInt(owners.length)] + " " + data[random.nextInt(data.length)]);
      for (int line = 1; line < 30; line++) {
        lines.add(randomLine(random, owners, data, true));
      }
      PlainMasterFile.Lines previous = lines(String.join("\n", lines) + "\n");
      assertNotNull(previous);
      for (int round = 0; round < 3; round++) {
        for (int edit = 0; edit < 1 + random.nextInt(4); edit++) {
          int at = 1 + random.nextInt(lines.size() - 1);
          switch (random.nextInt(3)) {
            case 0 -> lines.set(at, randomLine(random, owners, data, true));
            case 1 -> lines.remove(at);
            default -> lines.add(at, randomLine(random, owners, data, true));
          }
        }
        String text = String.join("\n", lines) + "\n";
        PlainMasterFile.Lines again = reread(previous, text);
        assertNotNull(again, text);
        assertEquals(
            master(text).stream().map(PlainMasterFileTest::spelled).toList(),
            again.records().stream().map(PlainMasterFileTest::spelled).toList(),
            text);
        for (Record r : again.records()) {
          if (previous.records().stream().anyMatch(o -> o == r)) {
            reused++;
          }
        }
        previous = again;
      }
    }
    assertTrue(reused > 10_000, "unchanged lines give the old records: " + reused);
  }

  private static String randomLine(
      java.util.Random random, String[] owners, String[] data, boolean mayInherit) {
    int pick = random.nextInt(12);
    if (pick == 0) {
      return "$TTL " + (60 + random.nextInt(3));
    } else if (pick == 1) {
      return random.nextBoolean() ? "$ORIGIN example.test." : "$ORIGIN Sub.example.test.";
    } else if (pick < 5 && mayInherit) {
      return "  " + data[random.nextInt(data.length)];
    }
    return owners[random.nextInt(owners.length)] + " " + data[random.nextInt(data.length)];
  }
}
