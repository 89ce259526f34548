package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.cli.CtlIo;
import io.sluice.admin.cli.CtlMain;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.dns.client.DnsjavaVerifier;
import io.sluice.server.app.SluiceNode;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * The admin side of a running node after real DNS traffic: the Prometheus scrape counts exactly the
 * queries sent, an invalid configuration file is refused through the API with the field named while
 * the old answers stay, and {@code sluice ctl verify} checks the DNS answers against the plan.
 */
class AdminEndToEndTest {
  /** A node with two pools and one manual service; other tests reuse it with their stateDir. */
  static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 } }
        us: { location: { lat: 39.0, lon: -77.5 } }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: 10.2.0.0/16, region: us }
      pools:
        p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        p-us: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
          services:
            - name: app
              ttl: 30
              pools: [{ pool: p-eu, weight: 1 }, { pool: p-us, weight: 1 }]
              chain: [healthy, geo]
              traffic: { mode: manual }
      """;

  private static final String REQUESTS = "sluice_dns_requests_total";

  @TempDir static Path dir;
  private static LiveNode node;

  @BeforeAll
  static void start() throws Exception {
    node = LiveNode.start(dir, CONFIG);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static PrometheusSamples scrape() throws Exception {
    LiveNode.Reply r = node.get("/metrics");
    assertEquals(200, r.status(), r.body());
    return PrometheusSamples.parse(r.body());
  }

  private static Map<String, String> labels(String zone, String qtype, String rcode, String tr) {
    return Map.of("zone", zone, "qtype", qtype, "rcode", rcode, "transport", tr);
  }

  private static void send(int times, String name, int type, String subnet, boolean tcp, int rcode)
      throws Exception {
    for (int i = 0; i < times; i++) {
      Message m = node.query(name, type, subnet, tcp);
      assertEquals(Rcode.string(rcode), Rcode.string(m.getRcode()), name);
    }
  }

  @Test
  void requestCounterMovesByExactlyTheQueriesSent() throws Exception {
    PrometheusSamples before = scrape();

    send(3, "www.example.test.", Type.A, null, false, Rcode.NOERROR);
    send(2, "nope.example.test.", Type.A, null, false, Rcode.NXDOMAIN);
    send(4, "www.example.test.", Type.AAAA, null, true, Rcode.NOERROR);
    send(1, "app.example.test.", Type.A, "10.1.0.0/24", true, Rcode.NOERROR);
    send(2, "www.elsewhere.invalid.", Type.A, null, false, Rcode.REFUSED);

    PrometheusSamples after = scrape();
    Map<Map<String, String>, Double> expected = new HashMap<>();
    expected.put(labels("example.test.", "A", "NOERROR", "udp"), 3.0);
    expected.put(labels("example.test.", "A", "NXDOMAIN", "udp"), 2.0);
    expected.put(labels("example.test.", "AAAA", "NOERROR", "tcp"), 4.0);
    expected.put(labels("example.test.", "A", "NOERROR", "tcp"), 1.0);
    expected.put(labels("", "A", "REFUSED", "udp"), 2.0);
    for (Map.Entry<Map<String, String>, Double> e : expected.entrySet()) {
      double delta = after.value(REQUESTS, e.getKey()) - before.value(REQUESTS, e.getKey());
      assertEquals(e.getValue(), delta, 0.0, e.getKey().toString());
    }
    double moved = 0;
    for (Map.Entry<String, Double> e : after.series(REQUESTS).entrySet()) {
      moved += e.getValue() - before.series(REQUESTS).getOrDefault(e.getKey(), 0.0);
    }
    assertEquals(12.0, moved, 0.0, "no other series moved: " + after.series(REQUESTS));
    double answers =
        after.value(
                "sluice_policy_answers_total",
                Map.of("service", "app.example.test.", "pool", "p-eu"))
            - before.value(
                "sluice_policy_answers_total",
                Map.of("service", "app.example.test.", "pool", "p-eu"));
    assertEquals(1.0, answers, 0.0, "the one service answer named p-eu");
  }

  @Test
  void metricsNeedTheToken() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(node.adminUrl() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(401, r.statusCode());
  }

  @Test
  void invalidConfigReloadIsRefusedNamingTheFieldAndTheOldAnswersStay() throws Exception {
    long configVersion = node.get("/api/v1/version").json().path("configVersion").asLong();
    String good = Files.readString(node.configFile);
    Files.writeString(
        node.configFile,
        good.replace("{ pool: p-eu, weight: 1 }", "{ pool: p-eu, weight: -1 }")
            .replace("192.0.2.80", "192.0.2.99"));
    try {
      LiveNode.Reply r = node.post("/api/v1/config/reload", "{\"reason\": \"CHG-1\"}");
      assertEquals(400, r.status(), r.body());
      JsonNode body = r.json();
      assertEquals("invalid_config", body.path("error").asText(), r.body());
      List<String> problems = new ArrayList<>();
      body.path("problems")
          .forEach(p -> problems.add(p.path("path").asText() + ": " + p.path("message").asText()));
      assertTrue(
          problems.stream()
              .anyMatch(
                  p -> p.startsWith("zones[0].services[0].pools[0].weight: ") && p.contains("-1")),
          problems.toString());
    } finally {
      Files.writeString(node.configFile, good);
    }
    assertEquals(List.of("192.0.2.80"), LiveNode.addresses(node.query("www.example.test.", null)));
    assertEquals(
        List.of("192.0.2.11"), LiveNode.addresses(node.query("app.example.test.", "10.1.0.0/24")));
    assertEquals(configVersion, node.get("/api/v1/version").json().path("configVersion").asLong());
  }

  private record Ctl(int exit, String out, String err) {}

  private static Ctl ctl(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CtlIo io =
        new CtlIo(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")),
            Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", node.token),
            false);
    int exit = CtlMain.run(args, io, new DnsjavaVerifier());
    return new Ctl(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void ctlVerifyPassesAgainstTheRunningServer() {
    Ctl r =
        ctl(
            "verify",
            "app.example.test",
            "--dns",
            "127.0.0.1:" + node.dnsPort(),
            "--subnet",
            "10.1.0.0/24",
            "--subnet",
            "10.2.0.0/24");
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("all 2 subnets match the plan"), r.out());
    // Without --subnet, every network of the configured map is asked.
    Ctl all = ctl("verify", "app.example.test", "--dns", "127.0.0.1:" + node.dnsPort(), "--json");
    assertEquals(0, all.exit(), all.out() + all.err());
    assertTrue(all.out().contains("\"10.1.0.0/16\""), all.out());
    assertTrue(all.out().contains("\"10.2.0.0/16\""), all.out());
  }

  @Test
  void ctlVerifyFailsWhenTheDnsServerAnswersOutsideThePlan() throws Exception {
    // A DNS server for the same zone that ignores the policy chain and hands out every pool, as a
    // node left on an old build would: its answers must not pass for the plan.
    try (SluiceNode stale =
        SluiceNode.start(
            ConfigLoader.parse(CONFIG, "stale.yaml", dir),
            "stale.yaml",
            AllEndpointsPlanner::new,
            GslbMetrics.NOOP)) {
      Ctl r =
          ctl(
              "verify",
              "app.example.test",
              "--dns",
              "127.0.0.1:" + stale.port(),
              "--subnet",
              "10.1.0.0/24");
      assertEquals(CtlMain.FAILED, r.exit(), r.out() + r.err());
      assertTrue(r.out().contains("MISMATCH"), r.out());
      assertTrue(r.out().contains("answers differ from the plan"), r.out());
    }
  }
}
