package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.dns.zone.Zone;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Static answers are encoded when a name is first asked for, not when the zone is loaded, and are
 * the same whichever thread asks first: a zone of a million names then loads without encoding a
 * million answers, and holds none for names nobody asks for.
 */
class AnswersOnFirstAskTest {
  private static final int HOSTS = 200;

  @TempDir Path dir;

  private TestServer start() throws Exception {
    StringBuilder zone =
        new StringBuilder(
            """
            $TTL 300
            @     IN SOA   ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            @     IN MX    10 Mail.example.test.
            Mail  IN A     192.0.2.25
            www   IN A     192.0.2.80
            www   IN TXT   "web"
            alias IN CNAME www.example.test.
            """);
    for (int i = 0; i < HOSTS; i++) {
      zone.append("h").append(i).append(" IN A 10.0.").append(i / 256).append('.');
      zone.append(i % 256).append('\n');
    }
    return start(zone);
  }

  /** A server for example.test. with {@code zone} as its master file. */
  private TestServer start(CharSequence zone) throws Exception {
    Files.writeString(dir.resolve("z.zone"), zone);
    return TestServer.start(
        """
        zones:
          - origin: example.test.
            file: z.zone
            ns: [ns1.example.test.]
            records: [ { name: ns1, type: A, data: 192.0.2.53 } ]
        """,
        dir,
        GslbMetrics.NOOP);
  }

  private static Zone zone(TestServer s) {
    return s.node.responder().index().zones().get(0);
  }

  @Test
  void nothingIsEncodedAtLoadAndEachNameOnItsFirstQuestion() throws Exception {
    try (TestServer s = start()) {
      Zone z = zone(s);
      for (Name n : z.names()) {
        assertNull(z.node(n).answers(), n + " was encoded before anyone asked");
      }
      Message mx = s.query("example.test.", Type.MX, false);
      assertEquals(Rcode.NOERROR, mx.getRcode());
      assertEquals(
          List.of("example.test. 300 MX 10 Mail.example.test."),
          TestServer.section(mx, Section.ANSWER));
      assertEquals(
          List.of("Mail.example.test. 300 A 192.0.2.25"),
          TestServer.section(mx, Section.ADDITIONAL));
      assertNotNull(z.node(Name.fromString("example.test.")).answers());
      assertNull(z.node(Name.fromString("www.example.test.")).answers());

      Message nodata = s.query("WWW.example.test.", Type.AAAA, false);
      assertEquals(Rcode.NOERROR, nodata.getRcode());
      assertEquals(0, nodata.getSection(Section.ANSWER).size());
      assertEquals(Type.SOA, nodata.getSection(Section.AUTHORITY).get(0).getType());
      assertEquals(
          List.of("www.example.test. 300 TXT \"web\""),
          TestServer.section(s.query("www.example.test.", Type.TXT, false), Section.ANSWER));
      assertEquals(
          List.of(
              "alias.example.test. 300 CNAME www.example.test.",
              "www.example.test. 300 A 192.0.2.80"),
          TestServer.section(s.query("alias.example.test.", Type.A, false), Section.ANSWER));
      assertNull(z.node(Name.fromString("h7.example.test.")).answers());
    }
  }

  @Test
  void aLargeZoneEncodesLoneAddressesForEachQuestionAndKeepsOtherAnswers() throws Exception {
    // One name more than the responder keeps every answer for (StaticAnswers.KEEP_ALL_UP_TO).
    int hosts = 100_001;
    StringBuilder zone =
        new StringBuilder(
            """
            $TTL 300
            @     IN SOA   ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            www   IN A     192.0.2.80
            www   IN TXT   "web"
            two   IN A     192.0.2.1
            two   IN A     192.0.2.2
            v6    IN AAAA  2001:db8::6
            """);
    for (int i = 0; i < hosts; i++) {
      zone.append("h").append(i).append(" IN A 10.").append(i >> 16).append('.');
      zone.append((i >> 8) & 255).append('.').append(i & 255).append('\n');
    }
    try (TestServer s = start(zone)) {
      Zone z = zone(s);
      Name h = Name.fromString("h70000.example.test.");
      for (int round = 0; round < 2; round++) {
        Message a = s.query("H70000.Example.test.", Type.A, false);
        assertEquals(Rcode.NOERROR, a.getRcode());
        assertEquals(
            List.of("H70000.Example.test. 300 A 10.1.17.112"),
            TestServer.section(a, Section.ANSWER));
        assertEquals(
            List.of("v6.example.test. 300 AAAA 2001:db8:0:0:0:0:0:6"),
            TestServer.section(s.query("v6.example.test.", Type.AAAA, false), Section.ANSWER));
        // Answered, and still nothing kept for these names.
        assertNull(z.node(h).answers());
        assertNull(z.node(Name.fromString("v6.example.test.")).answers());
      }
      // A NODATA answer carries the SOA: that one is kept.
      Message nodata = s.query("v6.example.test.", Type.A, false);
      assertEquals(Type.SOA, nodata.getSection(Section.AUTHORITY).get(0).getType());
      assertNotNull(z.node(Name.fromString("v6.example.test.")).answers());
      assertEquals(
          List.of("two.example.test. 300 A 192.0.2.1", "two.example.test. 300 A 192.0.2.2"),
          TestServer.section(s.query("two.example.test.", Type.A, false), Section.ANSWER));
      assertEquals(
          List.of("www.example.test. 300 TXT \"web\""),
          TestServer.section(s.query("www.example.test.", Type.TXT, false), Section.ANSWER));
      assertNotNull(z.node(Name.fromString("two.example.test.")).answers());
      assertNotNull(z.node(Name.fromString("www.example.test.")).answers());
    }
  }

  @Test
  void threadsAskingForTheSameNewNamesAtOnceGetTheSameAnswers() throws Exception {
    try (TestServer s = start()) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<List<byte[]>>> results = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          Callable<List<byte[]>> ask =
              () -> {
                List<byte[]> answers = new ArrayList<>();
                for (int i = 0; i < HOSTS; i++) {
                  Message q =
                      Message.newQuery(
                          Record.newRecord(
                              Name.fromString("h" + i + ".example.test."), Type.A, DClass.IN));
                  q.getHeader().setID(i);
                  answers.add(s.udp(q.toWire()));
                }
                return answers;
              };
          results.add(pool.submit(ask));
        }
        List<byte[]> first = results.get(0).get();
        for (int i = 0; i < HOSTS; i++) {
          Message m = new Message(first.get(i));
          assertEquals(
              List.of("h" + i + ".example.test. 300 A 10.0." + i / 256 + "." + i % 256),
              TestServer.section(m, Section.ANSWER));
        }
        for (Future<List<byte[]>> f : results) {
          List<byte[]> other = f.get();
          for (int i = 0; i < HOSTS; i++) {
            assertArrayEquals(first.get(i), other.get(i), "h" + i);
          }
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
