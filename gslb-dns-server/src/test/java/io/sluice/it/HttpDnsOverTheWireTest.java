package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.dns.https.DohClient;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPDNS ({@code GET /resolve}, JSON) against a running node with the JDK's HTTP client over TLS:
 * the policy chain answers for the connection's address, or for {@code ip=} only when the caller
 * presents a trusted token; bad names and types get 400 with a reason.
 */
class HttpDnsOverTheWireTest {
  @TempDir static Path dir;
  private static LiveNode node;
  private static DohClient client;

  @BeforeAll
  static void start() throws Exception {
    node = LiveNode.start(dir, DohOverTheWireTest.config(1000));
    client =
        new DohClient(
            node.runtime.node().httpsPort(),
            dir.resolve("state/https.crt"),
            HttpClient.Version.HTTP_2);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static JsonNode json(HttpResponse<byte[]> r, int status) throws Exception {
    assertEquals(status, r.statusCode(), () -> new String(r.body()));
    assertEquals("application/json", r.headers().firstValue("content-type").orElseThrow());
    return LiveNode.JSON.readTree(r.body());
  }

  private static List<String> data(JsonNode answer) {
    List<String> out = new ArrayList<>();
    answer.get("Answer").forEach(a -> out.add(a.get("data").asText()));
    return out;
  }

  @Test
  void answersForTheConnectionsAddress() throws Exception {
    HttpResponse<byte[]> r = client.get("/resolve?name=geo.example.test&type=A");
    JsonNode j = json(r, 200);
    assertEquals(0, j.get("Status").asInt());
    // 127.0.0.1 is in the ap network of the topology.
    assertEquals(List.of("203.0.113.31"), data(j));
    JsonNode a = j.get("Answer").get(0);
    assertEquals("geo.example.test.", a.get("name").asText());
    assertEquals(1, a.get("type").asInt());
    assertEquals(30, a.get("TTL").asInt());
    assertEquals("127.0.0.1/32", j.get("edns_client_subnet").asText());
    assertEquals(8, j.get("scope_prefix_length").asInt());
    assertEquals("geo.example.test.", j.get("Question").get(0).get("name").asText());
    assertEquals("private, max-age=30", r.headers().firstValue("cache-control").orElseThrow());
  }

  @Test
  void typeDefaultsToAAndNegativeAnswersCarryTheSoa() throws Exception {
    assertEquals(
        List.of("192.0.2.80"), data(json(client.get("/resolve?name=www.example.test"), 200)));
    JsonNode nx = json(client.get("/resolve?name=nope.example.test&type=AAAA"), 200);
    assertEquals(3, nx.get("Status").asInt());
    assertEquals(6, nx.get("Authority").get(0).get("type").asInt());
    assertTrue(!nx.has("Answer"));
    JsonNode outside = json(client.get("/resolve?name=example.org&type=28"), 200);
    assertEquals(5, outside.get("Status").asInt(), "REFUSED outside the served zones");
  }

  @Test
  void ipNeedsATrustedToken() throws Exception {
    String path = "/resolve?name=geo.example.test&ip=10.1.2.3";
    JsonNode refused = json(client.get(path), 403);
    assertTrue(refused.get("error").asText().contains("trusted token"));
    json(client.get(path, "not-the-token"), 403);
    JsonNode eu = json(client.get(path, DohOverTheWireTest.TRUSTED_TOKEN), 200);
    assertEquals(List.of("192.0.2.11"), data(eu));
    assertEquals("10.1.2.3/32", eu.get("edns_client_subnet").asText());
    JsonNode subnet =
        json(
            client.get(
                "/resolve?name=geo.example.test&ip=10.2.0.0/24", DohOverTheWireTest.TRUSTED_TOKEN),
            200);
    assertEquals(List.of("198.51.100.21"), data(subnet));
    assertEquals("10.2.0.0/24", subnet.get("edns_client_subnet").asText());
  }

  @Test
  void badQuestionsGet400WithTheReason() throws Exception {
    assertTrue(json(client.get("/resolve"), 400).get("error").asText().contains("name"));
    assertTrue(
        json(client.get("/resolve?name=www.example.test&type=BOGUS"), 400)
            .get("error")
            .asText()
            .contains("type"));
    assertTrue(json(client.get("/resolve?name=a..b"), 400).get("error").asText().contains("name"));
    String token = DohOverTheWireTest.TRUSTED_TOKEN;
    assertTrue(
        json(client.get("/resolve?name=www.example.test&ip=10.1.2.3/40", token), 400)
            .get("error")
            .asText()
            .contains("prefix"));
    assertEquals(
        405,
        client
            .send(java.net.http.HttpRequest.newBuilder(client.uri("/resolve")).DELETE())
            .statusCode());
  }

  @Test
  void requestsAreCounted() throws Exception {
    client.get("/resolve?name=www.example.test");
    PrometheusSamples s = PrometheusSamples.parse(node.get("/metrics").body());
    assertTrue(
        s.value(
                "sluice_https_requests_total",
                Map.of("endpoint", "httpdns", "method", "GET", "status", "200"))
            >= 1);
  }
}
