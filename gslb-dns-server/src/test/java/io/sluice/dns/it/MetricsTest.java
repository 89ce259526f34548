package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.spi.GslbMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Type;

/** Every query is counted once with its zone, type, rcode and transport; drops as DROPPED. */
class MetricsTest {

  record Seen(String zone, int qtype, int rcode, boolean tcp, long nanos) {}

  @Test
  void queriesAreCountedWithTheirLabels() throws Exception {
    ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
    GslbMetrics recorder =
        new GslbMetrics() {
          @Override
          public void dnsQuery(String zone, int qtype, int rcode, boolean tcp, long nanos) {
            seen.add(new Seen(zone, qtype, rcode, tcp, nanos));
          }
        };
    try (TestServer server = TestServer.start(TestZones.CONFIG, Path.of("."), recorder)) {
      server.query("www.example.test.", Type.A, false);
      server.query("nope.example.test.", Type.MX, true);
      server.query("www.example.org.", Type.AAAA, false);
      server.udp(new byte[] {1, 2, 3}, 300);
      // The last report is made on the event loop right after the reply: wait for it briefly.
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (seen.size() < 4 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    List<Seen> all = List.copyOf(seen);
    assertEquals(4, all.size(), all.toString());
    assertEquals(
        List.of(
            "example.test. 1 0 false", "example.test. 15 3 true", " 28 5 false", " -1 -1 false"),
        all.stream().map(s -> s.zone + " " + s.qtype + " " + s.rcode + " " + s.tcp).toList());
    assertTrue(all.stream().allMatch(s -> s.nanos >= 0));
  }
}
