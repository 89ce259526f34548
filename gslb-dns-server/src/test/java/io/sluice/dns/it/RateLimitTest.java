package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.testing.ManualTicker;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Response rate limiting over real UDP and TCP sockets: a flood from one address is answered up to
 * the limit, then slipped (TC=1) and dropped in the configured ratio, while another /24 and TCP are
 * answered; log-only mode answers everything and counts; a valid server cookie is never limited.
 * Time stands still on a manual ticker, so every bucket is exact.
 */
class RateLimitTest {
  private static final InetAddress FLOODER = address("127.0.0.1");
  private static final InetAddress NEIGHBOUR = address("127.0.1.1");

  @TempDir Path dir;

  private static String config(String rrl, String extra) {
    return """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          rrl: { enabled: true, responsesPerSecond: 5, nxdomainsPerSecond: 3, window: 2s, %s }
          %s
        stateDir: state
        """
            .formatted(rrl, extra)
        + TestZones.SMALL_ZONE;
  }

  @Test
  void floodIsLimitedWithItsSlipRatioWhileOthersAreAnswered() throws Exception {
    ManualTicker ticker = new ManualTicker();
    try (PrometheusMetrics metrics = new PrometheusMetrics();
        TestServer server = TestServer.start(config("slip: 2", ""), dir, metrics.gslb(), ticker)) {
      // 25 from one address: 5 answered, of the 20 over the limit every second one slipped.
      Replies flood = flood(server, FLOODER, 25, "www.example.test.");
      assertEquals(5, flood.answered, flood.toString());
      assertEquals(10, flood.truncated, flood.toString());
      assertEquals(15, flood.total(), flood.toString());

      // Another /24 has its own bucket; so has another name; TCP is never limited.
      assertEquals(5, flood(server, NEIGHBOUR, 5, "www.example.test.").answered);
      assertEquals(5, flood(server, FLOODER, 5, "mail.example.test.").answered);
      Message tcp = server.query("www.example.test.", Type.A, true);
      assertEquals(1, tcp.getSection(Section.ANSWER).size());

      // NXDOMAIN is counted per zone: ten different names share one budget of 3.
      Replies nx = new Replies();
      for (int i = 0; i < 10; i++) {
        nx.add(flood(server, FLOODER, 1, "nx" + i + ".example.test."));
      }
      assertEquals(3, nx.nxdomain, nx.toString());
      assertEquals(3, nx.truncated, nx.toString());

      String text = metrics.scrape();
      assertMetric(text, "sluice_dns_rrl_limited_total{kind=\"answer\"}", 20);
      assertMetric(text, "sluice_dns_rrl_slipped_total{kind=\"answer\"}", 10);
      assertMetric(text, "sluice_dns_rrl_dropped_total{kind=\"answer\"}", 10);
      assertMetric(text, "sluice_dns_rrl_limited_total{kind=\"nxdomain\"}", 7);
      assertMetric(text, "sluice_dns_rrl_limited_total{kind=\"error\"}", 0);

      // The debt (at most 2 s of credit, 10) is paid back at 5 a second: still limited one
      // second later, answered again once the whole debt is paid.
      ticker.advance(Duration.ofSeconds(1));
      assertEquals(0, flood(server, FLOODER, 1, "www.example.test.").answered);
      ticker.advance(Duration.ofSeconds(3));
      assertEquals(5, flood(server, FLOODER, 5, "www.example.test.").answered);
    }
  }

  @Test
  void slipZeroDropsEveryLimitedResponse() throws Exception {
    try (TestServer server =
        TestServer.start(
            config("slip: 0", ""), dir, io.sluice.core.spi.GslbMetrics.NOOP, new ManualTicker())) {
      Replies r = flood(server, FLOODER, 12, "www.example.test.");
      assertEquals(5, r.answered, r.toString());
      assertEquals(5, r.total(), r.toString());
    }
  }

  @Test
  void logOnlyAnswersEverythingAndCounts() throws Exception {
    try (PrometheusMetrics metrics = new PrometheusMetrics();
        TestServer server =
            TestServer.start(
                config("logOnly: true", ""), dir, metrics.gslb(), new ManualTicker())) {
      Replies r = flood(server, FLOODER, 25, "www.example.test.");
      assertEquals(25, r.answered, r.toString());
      String text = metrics.scrape();
      assertMetric(text, "sluice_dns_rrl_limited_total{kind=\"answer\"}", 20);
      assertMetric(text, "sluice_dns_rrl_slipped_total{kind=\"answer\"}", 0);
      assertMetric(text, "sluice_dns_rrl_dropped_total{kind=\"answer\"}", 0);
    }
  }

  @Test
  void aClientWithAValidServerCookieIsNotLimited() throws Exception {
    try (TestServer server =
        TestServer.start(
            config("slip: 0", "cookies: { enabled: true }"),
            dir,
            io.sluice.core.spi.GslbMetrics.NOOP,
            new ManualTicker())) {
      byte[] client = {1, 2, 3, 4, 5, 6, 7, 8};
      Message first = exchange(server, query("www.example.test.", new CookieOption(client)));
      CookieOption cookie = cookieOf(first);
      assertTrue(cookie.getServerCookie().isPresent());
      // The bucket is spent by queries without a cookie...
      assertEquals(4, flood(server, FLOODER, 10, "www.example.test.").answered);
      // ... and by a client cookie alone, which proves nothing ...
      assertEquals(
          0, flood(server, FLOODER, 3, query("www.example.test.", cookie(client))).total());
      // ... but a valid server cookie is answered, every time.
      Replies valid = flood(server, FLOODER, 10, query("www.example.test.", cookie));
      assertEquals(10, valid.answered, valid.toString());
    }
  }

  @Test
  void aSlipCarriesTheServerCookieThatGetsTheClientAnswered() throws Exception {
    try (TestServer server =
        TestServer.start(
            config("slip: 1", "cookies: { enabled: true }"),
            dir,
            io.sluice.core.spi.GslbMetrics.NOOP,
            new ManualTicker())) {
      assertEquals(5, flood(server, FLOODER, 8, "www.example.test.").answered);
      // Over the limit, a cookie-aware client gets a truncated response with a server cookie...
      Message slipped =
          exchange(server, query("www.example.test.", cookie(new byte[] {8, 7, 6, 5, 4, 3, 2, 1})));
      assertTrue(slipped.getHeader().getFlag(Flags.TC), slipped.toString());
      assertEquals(0, slipped.getSection(Section.ANSWER).size());
      CookieOption cookie = cookieOf(slipped);
      // ... and its next query, presenting it, is answered over UDP in the middle of the flood.
      Message answered = exchange(server, query("www.example.test.", cookie));
      assertFalse(answered.getHeader().getFlag(Flags.TC));
      assertEquals(1, answered.getSection(Section.ANSWER).size());
    }
  }

  // ---- helpers ----

  /** What came back for a burst of queries. */
  static final class Replies {
    int answered;
    int truncated;
    int nxdomain;
    int other;

    int total() {
      return answered + truncated + nxdomain + other;
    }

    void add(Replies r) {
      answered += r.answered;
      truncated += r.truncated;
      nxdomain += r.nxdomain;
      other += r.other;
    }

    @Override
    public String toString() {
      return "answered=%d truncated=%d nxdomain=%d other=%d"
          .formatted(answered, truncated, nxdomain, other);
    }
  }

  private static Replies flood(TestServer server, InetAddress from, int n, String name)
      throws IOException {
    return flood(server, from, n, query(name));
  }

  /**
   * Sends {@code n} copies of {@code query} from {@code from}, then a NODATA query (a bucket of its
   * own, never spent here), and reads replies until that last one's: the server answers one
   * socket's queries in order, so every reply the flood got has arrived by then, and what is
   * missing was dropped.
   */
  private static Replies flood(TestServer server, InetAddress from, int n, Message query)
      throws IOException {
    Replies r = new Replies();
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(from, 0))) {
      byte[] wire = query.toWire();
      for (int i = 0; i < n; i++) {
        s.send(new DatagramPacket(wire, wire.length, TestServer.LOOPBACK, server.port()));
      }
      Message sentinel =
          Message.newQuery(
              Record.newRecord(Name.fromString("ns1.example.test."), Type.TXT, DClass.IN));
      byte[] last = sentinel.toWire();
      s.send(new DatagramPacket(last, last.length, TestServer.LOOPBACK, server.port()));
      s.setSoTimeout(5000);
      byte[] buf = new byte[4096];
      while (true) {
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        s.receive(p);
        Message m = new Message(java.util.Arrays.copyOf(buf, p.getLength()));
        if (m.getQuestion().getType() == Type.TXT) {
          return r;
        }
        if (m.getHeader().getFlag(Flags.TC)) {
          assertEquals(0, m.getHeader().getCount(Section.ANSWER), "a slip carries no answer");
          r.truncated++;
        } else if (m.getRcode() == Rcode.NXDOMAIN) {
          r.nxdomain++;
        } else if (m.getRcode() == Rcode.NOERROR && m.getSection(Section.ANSWER).size() == 1) {
          r.answered++;
        } else {
          r.other++;
        }
      }
    }
  }

  private static Message exchange(TestServer server, Message query) throws IOException {
    return new Message(server.udp(query.toWire()));
  }

  static Message query(String name, EDNSOption... options) throws IOException {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN));
    q.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(options)), Section.ADDITIONAL);
    return q;
  }

  static CookieOption cookieOf(Message m) {
    List<EDNSOption> options = new ArrayList<>(m.getOPT().getOptions(EDNSOption.Code.COOKIE));
    assertEquals(1, options.size(), m.toString());
    return (CookieOption) options.get(0);
  }

  private static CookieOption cookie(byte[] client) {
    return new CookieOption(client);
  }

  private static void assertMetric(String scrape, String series, double value) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " ")) {
        assertEquals(value, Double.parseDouble(line.substring(series.length() + 1)), series);
        return;
      }
    }
    throw new AssertionError(series + " not in the scrape:\n" + scrape);
  }

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
