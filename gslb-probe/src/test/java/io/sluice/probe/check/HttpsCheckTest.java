package io.sluice.probe.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.CheckType;
import io.sluice.core.testing.SelfSignedKeyStore;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.StandardConstants;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS checks against a real local HTTPS server with a self-signed certificate: verification fails
 * with reason {@code tls}, {@code tlsInsecure} passes, and {@code host} is sent both as SNI and as
 * the Host header while the connection goes to the endpoint's address.
 */
class HttpsCheckTest {
  private static final char[] PASSWORD = "changeit".toCharArray();
  private static final String NAME = "backend.example.test";

  @TempDir static Path dir;
  private static HttpsServer server;
  private static ExecutorService pool;
  private static CheckFactory checks;
  private static volatile String lastSni;
  private static volatile String lastHost;

  @BeforeAll
  static void start() throws Exception {
    SSLContext tls = SSLContext.getInstance("TLS");
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(selfSigned(dir), PASSWORD);
    tls.init(kmf.getKeyManagers(), null, null);
    pool = Executors.newFixedThreadPool(2);
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setHttpsConfigurator(
        new HttpsConfigurator(tls) {
          @Override
          public void configure(HttpsParameters p) {
            SSLParameters sp = tls.getDefaultSSLParameters();
            // Accept any name, but remember which one the client asked for.
            sp.setSNIMatchers(
                List.of(
                    new SNIMatcher(StandardConstants.SNI_HOST_NAME) {
                      @Override
                      public boolean matches(SNIServerName name) {
                        lastSni = ((SNIHostName) name).getAsciiName();
                        return true;
                      }
                    }));
            p.setSSLParameters(sp);
          }
        });
    server.setExecutor(pool);
    server.createContext(
        "/",
        ex -> {
          lastHost = ex.getRequestHeaders().getFirst("Host");
          byte[] body = "{\"status\":\"ready\"}".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    checks = new CheckFactory(1);
  }

  @AfterAll
  static void stop() {
    checks.close();
    server.stop(0);
    pool.shutdownNow();
  }

  /** A self-signed certificate for {@link #NAME} and 127.0.0.1, made with the JDK's keytool. */
  private static KeyStore selfSigned(Path dir) throws Exception {
    return SelfSignedKeyStore.create(
        dir, "backend", NAME, "dns:" + NAME + ",ip:127.0.0.1", PASSWORD);
  }

  private static CheckConfig https(String host, Boolean insecure) {
    return new CheckConfig(
        CheckType.HTTPS,
        null,
        server.getAddress().getPort(),
        "/ready",
        null,
        host,
        null,
        null,
        "ready",
        null,
        null,
        null,
        insecure,
        null,
        Duration.ofSeconds(3),
        null);
  }

  private static CheckResult run(CheckConfig c) throws Exception {
    lastSni = null;
    lastHost = null;
    return checks.create(c, "127.0.0.1", Duration.ofSeconds(3)).run().get(10, TimeUnit.SECONDS);
  }

  @Test
  void anUntrustedCertificateFailsWithReasonTls() throws Exception {
    CheckResult r = run(https(NAME, null));
    assertFalse(r.ok(), r.toString());
    assertEquals("tls", r.reason(), r.toString());
    assertTrue(r.error().contains("127.0.0.1:" + server.getAddress().getPort()), r.error());
    assertEquals(NAME, lastSni, "SNI is the configured host, not the address");
    assertNull(lastHost, "no request is sent over an unverified connection");
  }

  @Test
  void anUntrustedCertificateFailsWithoutAHostToo() throws Exception {
    CheckResult r = run(https(null, false));
    assertEquals("tls", r.reason(), r.toString());
  }

  @Test
  void tlsInsecureAcceptsTheSelfSignedCertificateAndSendsHostAndSni() throws Exception {
    CheckResult r = run(https(NAME, true));
    assertTrue(r.ok(), r.toString());
    assertEquals(NAME, lastSni);
    assertEquals(NAME + ":" + server.getAddress().getPort(), lastHost);
  }

  @Test
  void tlsInsecureWithoutAHostConnectsToTheAddressWithoutSni() throws Exception {
    CheckResult r = run(https(null, true));
    assertTrue(r.ok(), r.toString());
    assertNull(lastSni, "no SNI for an IP literal");
    assertEquals("127.0.0.1:" + server.getAddress().getPort(), lastHost);
  }
}
