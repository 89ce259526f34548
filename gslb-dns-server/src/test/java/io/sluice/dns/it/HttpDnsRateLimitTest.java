package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.testing.ManualTicker;
import io.sluice.dns.https.DohClient;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTPDNS rate per client network, over a real TLS connection, timed by a manual clock: the
 * request over the rate gets 429 with Retry-After, a client backing off for that long is served
 * again, a trusted caller is not limited, and DoH is not subject to it.
 */
class HttpDnsRateLimitTest {
  private static final String TOKEN = "relay-token";

  @TempDir Path dir;
  private final ManualTicker ticker = new ManualTicker();
  private TestServer server;
  private DohClient client;

  @BeforeEach
  void start() throws Exception {
    String hash = DohClient.sha256Hex(TOKEN);
    String yaml =
        """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          https:
            listen: [127.0.0.1]
            port: 0
            http2: false
            httpdns: { requestsPerSecond: 3, trustedTokens: [ { name: relay, sha256: %s } ] }
        stateDir: state
        """
                .formatted(hash)
            + TestZones.SMALL_ZONE;
    server = TestServer.start(yaml, dir, GslbMetrics.NOOP, ticker);
    client =
        new DohClient(
            server.node.httpsPort(), dir.resolve("state/https.crt"), HttpClient.Version.HTTP_2);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private int resolve() throws Exception {
    return client.get("/resolve?name=www.example.test").statusCode();
  }

  @Test
  void overTheRateGets429UntilTheClientBacksOff() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertEquals(200, resolve(), "request " + i + " is within the rate");
    }
    HttpResponse<byte[]> limited = client.get("/resolve?name=www.example.test");
    assertEquals(429, limited.statusCode());
    assertEquals("2", limited.headers().firstValue("retry-after").orElseThrow());
    // HTTP/2 is off here: HTTP/1.1 was negotiated.
    assertEquals(HttpClient.Version.HTTP_1_1, limited.version());
    // A trusted relay is not limited by the address it connects from.
    assertEquals(200, client.get("/resolve?name=www.example.test", TOKEN).statusCode());
    // DoH has no such limit.
    assertEquals(
        200,
        client
            .get(
                org.xbill.DNS.Message.newQuery(
                    org.xbill.DNS.Record.newRecord(
                        org.xbill.DNS.Name.fromString("www.example.test."),
                        org.xbill.DNS.Type.A,
                        org.xbill.DNS.DClass.IN)))
            .statusCode());
    ticker.advance(Duration.ofSeconds(2));
    assertEquals(200, resolve(), "served again after Retry-After");
  }
}
