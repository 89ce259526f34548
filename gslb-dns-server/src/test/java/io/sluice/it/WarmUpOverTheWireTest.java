package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.core.health.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * The start-up warm-up (docs/dns.md) on a running node: it answers its synthetic queries before the
 * listeners read, and none of them reaches what real queries feed. The request and answer counters,
 * the decision log (every answer sampled), dnstap and the rate limiting table (one answer a second,
 * limited ones dropped) all see exactly the one real query that follows, from the loopback address
 * the warm-up also asked from.
 */
class WarmUpOverTheWireTest {
  private static final String CONFIG =
      """
      dns:
        listen: [127.0.0.1]
        port: 0
        threads: 1
        warmupQueries: 5000
        rrl: { responsesPerSecond: 1, nxdomainsPerSecond: 1, nodataPerSecond: 1, slip: 0 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      observability:
        decisionLog: { file: decisions.jsonl, sample: 1 }
        dnstap: { file: dnstap.fstrm, identity: warm-up-test }
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us] }
        us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu] }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
      pools:
        eu-1: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        us-1: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - { name: app, ttl: 30, pools: [eu-1, us-1], chain: [healthy, geo] }
      """;

  @TempDir Path dir;

  private static double sum(PrometheusSamples s, String name) {
    return s.series(name).values().stream().mapToDouble(Double::doubleValue).sum();
  }

  private static PrometheusSamples scrape(LiveNode node) throws Exception {
    LiveNode.Reply r = node.get("/metrics");
    assertEquals(200, r.status(), r.body());
    return PrometheusSamples.parse(r.body());
  }

  @Test
  void syntheticQueriesReachNoMetricLogOrRateLimitTable() throws Exception {
    Logger nodeLog = (Logger) LoggerFactory.getLogger("io.sluice.server.app.SluiceNode");
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    nodeLog.addAppender(seen);
    Level level = nodeLog.getLevel();
    nodeLog.setLevel(Level.INFO);
    LiveNode node;
    try {
      node = LiveNode.start(dir, CONFIG);
    } finally {
      nodeLog.setLevel(level);
      nodeLog.detachAppender(seen);
    }
    try {
      Pattern warmed = Pattern.compile("query path warmed up: (\\d+) synthetic queries");
      int synthetic = -1;
      for (ILoggingEvent e : seen.list) {
        Matcher m = warmed.matcher(e.getFormattedMessage());
        if (m.find()) {
          synthetic = Integer.parseInt(m.group(1));
        }
      }
      // The whole count, or what the time budget let through (it is checked every 1,024).
      assertTrue(synthetic >= 1024 && synthetic <= 5000, "warm-up logged: " + seen.list);
      node.setVerdict(Verdict.UP, "eu-1/a", "us-1/a");

      PrometheusSamples before = scrape(node);
      assertEquals(0.0, sum(before, "sluice_dns_requests_total"), "no synthetic query counted");
      assertEquals(0.0, sum(before, "sluice_policy_answers_total"), "no synthetic answer counted");

      // From 127.0.0.1, which the warm-up asked from thousands of times: a shared rate limiting
      // table would drop this answer (one a second, slip 0).
      Message m = node.query("app.example.test.", Type.A, "10.1.2.0/24", false);
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals(List.of("192.0.2.11"), LiveNode.addresses(m));

      Path decisions = dir.resolve("state").resolve("decisions.jsonl");
      LiveNode.waitFor(
          "the real answer in the decision log",
          () -> {
            try {
              return Files.exists(decisions) && !Files.readAllLines(decisions).isEmpty();
            } catch (java.io.IOException e) {
              return false;
            }
          });
      // Samples are written in order: any synthetic one would have been written before it.
      List<String> lines = Files.readAllLines(decisions);
      assertEquals(1, lines.size(), lines.toString());
      assertTrue(lines.get(0).contains("10.1.2.0"), lines.get(0));

      LiveNode.waitFor(
          "the real query and response in dnstap",
          () -> {
            try {
              return sum(scrape(node), "sluice_dnstap_messages_total") >= 2;
            } catch (Exception e) {
              return false;
            }
          });
      PrometheusSamples after = scrape(node);
      assertEquals(2.0, sum(after, "sluice_dnstap_messages_total"));
      assertEquals(1.0, sum(after, "sluice_dns_requests_total"));
      assertEquals(1.0, sum(after, "sluice_policy_answers_total"));
    } finally {
      node.close();
    }
  }
}
