package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.spi.DnsQueryLabels;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Label values of the DNS metrics stay bounded whatever clients send: queries over real sockets
 * with random query types, classes, opcodes, EDNS options and names in and out of the zone, then a
 * real scrape of {@code /metrics}. Before, every unknown type became its own series.
 */
class MetricLabelBoundsTest {
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
      """;

  private static final String REQUESTS = "sluice_dns_requests_total";
  private static final Pattern SERIES =
      Pattern.compile("^" + REQUESTS + "\\{(.*)} ", Pattern.MULTILINE);
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  @TempDir Path dir;

  @Test
  void randomQueryTypesClassesAndOptionsCreateBoundedSeries() throws Exception {
    Random random = new Random(20261130);
    int queries = 3000;
    int unknownTypes = 0;
    try (LiveNode node = LiveNode.start(dir, CONFIG);
        DatagramSocket socket = new DatagramSocket()) {
      socket.setSoTimeout(2000);
      InetSocketAddress server = new InetSocketAddress("127.0.0.1", node.dnsPort());
      byte[] buf = new byte[65535];
      for (int i = 0; i < queries; i++) {
        int type = random.nextInt(65536);
        if (DnsQueryLabels.qtypeIndex(type) == DnsQueryLabels.QTYPES.size() - 1) {
          unknownTypes++;
        }
        int dclass = i % 10 == 0 ? random.nextInt(65536) : DClass.IN;
        String name =
            i % 7 == 0 ? "x" + random.nextInt() + ".elsewhere.invalid." : "www.example.test.";
        Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, dclass));
        if (i % 5 == 0) {
          q.getHeader().setOpcode(random.nextInt(16));
        }
        if (i % 3 == 0) {
          int code = 65001 + random.nextInt(534);
          q.addRecord(
              new OPTRecord(1232, 0, 0, 0, List.of(new GenericEDNSOption(code, new byte[] {1}))),
              Section.ADDITIONAL);
        }
        byte[] wire = q.toWire();
        socket.send(new DatagramPacket(wire, wire.length, server));
        try {
          socket.receive(new DatagramPacket(buf, buf.length));
        } catch (SocketTimeoutException dropped) {
          // some of these are dropped on purpose; the count still covers them
        }
      }
      LiveNode.Reply r = node.get("/metrics");
      assertEquals(200, r.status());
      Set<String> seriesSeen = new HashSet<>();
      Set<String> qtypes = new HashSet<>();
      Matcher m = SERIES.matcher(r.body());
      while (m.find()) {
        seriesSeen.add(m.group(1));
        Matcher l = LABEL.matcher(m.group(1));
        while (l.find()) {
          String value = l.group(2);
          switch (l.group(1)) {
            case "qtype" -> qtypes.add(value);
            case "rcode" -> assertTrue(DnsQueryLabels.RCODES.contains(value), value);
            case "zone" -> assertTrue(Set.of("", "example.test.").contains(value), value);
            case "transport" -> assertEquals("udp", value);
            default -> throw new AssertionError("unexpected label " + l.group(0));
          }
        }
      }
      assertTrue(DnsQueryLabels.QTYPES.containsAll(qtypes), "qtypes: " + qtypes);
      assertTrue(qtypes.contains(DnsQueryLabels.OTHER));
      // zones (2) x query types (at most 57) x the few rcodes these queries get
      assertTrue(seriesSeen.size() < 400, seriesSeen.size() + " series");
      PrometheusSamples samples = PrometheusSamples.parse(r.body());
      double total = samples.series(REQUESTS).values().stream().mapToDouble(d -> d).sum();
      assertEquals(queries, total, 0.0, "every query counted once");
      double other = 0;
      for (Map.Entry<String, Double> e : samples.series(REQUESTS).entrySet()) {
        if (e.getKey().contains("qtype=\"other\"")) {
          other += e.getValue();
        }
      }
      assertEquals(unknownTypes, other, 0.0, "every query of an unknown type counts as other");
    }
  }
}
