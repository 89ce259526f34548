package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dns.https.DohClient;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * DNS over HTTPS (RFC 8484) against a running node, with the JDK's HTTP client over TLS (the
 * generated certificate verified): GET on HTTP/2 and POST on HTTP/1.1 answer exactly as UDP does,
 * without truncation; the policy chain decides by the request's ECS, else by the connection's
 * address; caching headers follow the TTLs; bad requests get their 4xx; every request is counted.
 */
class DohOverTheWireTest {
  static final String TRUSTED_TOKEN = "test-backend-token";

  /** The policy config of {@link PolicyOverTheWireTest} with DoH on and a trusted HTTPDNS token. */
  static String config(int requestsPerSecond) {
    return """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          https:
            listen: [127.0.0.1]
            port: 0
            httpdns:
              requestsPerSecond: %d
              trustedTokens: [ { name: backend, sha256: %s } ]
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        regions:
          eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us, ap] }
          us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu, ap] }
          ap: { location: { lat: 22.3, lon: 114.2 }, proximity: [us, eu] }
        topology:
          defaultRegion: us
          networks:
            - { cidr: 10.1.0.0/16, region: eu }
            - { cidr: 10.2.0.0/16, region: us }
            - { cidr: 127.0.0.0/8, region: ap }
        pools:
          eu-1: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
          us-1: { region: us, endpoints: [ { name: a, address: 198.51.100.21 } ] }
          ap-1: { region: ap, endpoints: [ { name: a, address: 203.0.113.31 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test., minimum: 120 }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: www, type: A, data: 192.0.2.80, ttl: 300 }
        %s
            services:
              - name: geo
                ttl: 30
                pools: [eu-1, us-1, ap-1]
                chain: [healthy, geo]
                traffic: { mode: manual }
        """
        .formatted(requestsPerSecond, DohClient.sha256Hex(TRUSTED_TOKEN), BIG);
  }

  /** Ten TXT records of 200 bytes at big.example.test: larger than any UDP answer. */
  private static final String BIG = bigRecords();

  private static String bigRecords() {
    List<String> lines = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      lines.add("      - { name: big, type: TXT, data: '" + i + "x".repeat(200) + "' }");
    }
    return String.join("\n", lines);
  }

  @TempDir static Path dir;
  private static LiveNode node;
  private static DohClient h2;
  private static DohClient h1;

  @BeforeAll
  static void start() throws Exception {
    node = LiveNode.start(dir, config(1000));
    Path cert = dir.resolve("state/https.crt");
    h2 = new DohClient(node.runtime.node().httpsPort(), cert, HttpClient.Version.HTTP_2);
    h1 = new DohClient(node.runtime.node().httpsPort(), cert, HttpClient.Version.HTTP_1_1);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static Message dns(HttpResponse<byte[]> r) throws Exception {
    assertEquals(200, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
    assertEquals("application/dns-message", r.headers().firstValue("content-type").orElseThrow());
    return new Message(r.body());
  }

  @Test
  void getOverHttp2AnswersAsUdp() throws Exception {
    Message q = LiveNode.queryMessage("www.example.test.", Type.A, null);
    HttpResponse<byte[]> r = h2.get(q);
    assertEquals(HttpClient.Version.HTTP_2, r.version());
    Message doh = dns(r);
    Message udp = node.resolver(false).send(q);
    assertEquals(udp.getRcode(), doh.getRcode());
    assertEquals(udp.getHeader().getID(), doh.getHeader().getID());
    assertEquals(udp.getSection(Section.ANSWER), doh.getSection(Section.ANSWER));
    assertEquals(List.of("192.0.2.80"), LiveNode.addresses(doh));
    assertEquals("max-age=300", r.headers().firstValue("cache-control").orElseThrow());
  }

  @Test
  void postOverHttp11AnswersAsUdp() throws Exception {
    Message q = LiveNode.queryMessage("geo.example.test.", Type.A, "10.1.0.0/24");
    HttpResponse<byte[]> r = h1.post(q.toWire(), "application/dns-message");
    assertEquals(HttpClient.Version.HTTP_1_1, r.version());
    Message doh = dns(r);
    Message udp = node.resolver(false).send(q);
    assertEquals(udp.getSection(Section.ANSWER), doh.getSection(Section.ANSWER));
    assertEquals(LiveNode.scope(udp), LiveNode.scope(doh));
    assertEquals("max-age=30", r.headers().firstValue("cache-control").orElseThrow());
  }

  @Test
  void ecsOfTheRequestElseTheConnectionAddressPicksTheAnswer() throws Exception {
    // The request's ECS names an eu client ...
    Message eu = dns(h2.get(LiveNode.queryMessage("geo.example.test.", Type.A, "10.1.0.0/24")));
    assertEquals(List.of("192.0.2.11"), LiveNode.addresses(eu));
    assertEquals(16, LiveNode.scope(eu));
    // ... without one the connection's address (127.0.0.1, mapped to ap) decides.
    Message ap = dns(h2.get(LiveNode.queryMessage("geo.example.test.", Type.A, null)));
    assertEquals(List.of("203.0.113.31"), LiveNode.addresses(ap));
  }

  @Test
  void largeAnswersAreNotTruncatedAsOverTcp() throws Exception {
    Message q = LiveNode.queryMessage("big.example.test.", Type.TXT, null);
    org.xbill.DNS.SimpleResolver plainUdp = node.resolver(false);
    plainUdp.setIgnoreTruncation(true); // no retry over TCP: see the UDP answer itself
    Message udp = plainUdp.send(q);
    assertTrue(udp.getHeader().getFlag(Flags.TC), "the UDP answer is truncated");
    Message doh = dns(h2.get(q));
    assertFalse(doh.getHeader().getFlag(Flags.TC));
    assertEquals(10, doh.getSection(Section.ANSWER).size());
    assertEquals(
        node.resolver(true).send(q).getSection(Section.ANSWER), doh.getSection(Section.ANSWER));
  }

  @Test
  void aLargePostBodyInManyFramesIsAnsweredWhole() throws Exception {
    // 40000 bytes of EDNS padding (RFC 7830): the body spans several HTTP/2 DATA frames.
    Message q = LiveNode.queryMessage("www.example.test.", Type.A, null);
    q.addRecord(
        new org.xbill.DNS.OPTRecord(
            1232, 0, 0, 0, List.of(new org.xbill.DNS.GenericEDNSOption(12, new byte[40_000]))),
        Section.ADDITIONAL);
    for (DohClient client : List.of(h2, h1)) {
      Message doh = dns(client.post(q.toWire(), "application/dns-message"));
      assertEquals(List.of("192.0.2.80"), LiveNode.addresses(doh));
    }
  }

  @Test
  void negativeAnswersAreCachedForTheNegativeTtl() throws Exception {
    HttpResponse<byte[]> r = h2.get(LiveNode.queryMessage("nope.example.test.", Type.A, null));
    assertEquals(Rcode.NXDOMAIN, dns(r).getRcode());
    assertEquals("max-age=120", r.headers().firstValue("cache-control").orElseThrow());
  }

  @Test
  void badRequestsGetTheirStatus() throws Exception {
    assertEquals(400, h2.get("/dns-query?dns=!not*base64").statusCode());
    assertEquals(400, h2.get("/dns-query").statusCode(), "no dns parameter");
    assertEquals(400, h1.post(new byte[] {1, 2, 3}, "application/dns-message").statusCode());
    byte[] query = LiveNode.queryMessage("www.example.test.", Type.A, null).toWire();
    assertEquals(415, h2.post(query, "application/json").statusCode());
    assertEquals(413, h2.post(new byte[70_000], "application/dns-message").statusCode());
    assertEquals(413, h1.post(new byte[70_000], "application/dns-message").statusCode());
    HttpResponse<byte[]> put =
        h2.send(
            HttpRequest.newBuilder(h2.uri("/dns-query"))
                .header("content-type", "application/dns-message")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(query)));
    assertEquals(405, put.statusCode());
    assertEquals("GET, POST", put.headers().firstValue("allow").orElseThrow());
    assertEquals(404, h2.get("/elsewhere").statusCode());
    // The connection is still usable after each of them.
    assertEquals(Rcode.NOERROR, dns(h1.post(query, "application/dns-message")).getRcode());
  }

  @Test
  void requestsAreCountedByEndpointMethodAndStatus() throws Exception {
    h2.get(LiveNode.queryMessage("www.example.test.", Type.A, null));
    h2.post(new byte[] {1}, "text/plain");
    PrometheusSamples s = PrometheusSamples.parse(node.get("/metrics").body());
    String name = "sluice_https_requests_total";
    assertTrue(s.value(name, Map.of("endpoint", "doh", "method", "GET", "status", "200")) >= 1);
    assertTrue(s.value(name, Map.of("endpoint", "doh", "method", "POST", "status", "415")) >= 1);
  }
}
