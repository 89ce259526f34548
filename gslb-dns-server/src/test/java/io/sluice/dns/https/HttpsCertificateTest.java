package io.sluice.dns.https;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.server.app.SluiceNode;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTPS listener's certificate: generated on first start into the state directory (key readable
 * by its owner only) and kept across restarts, renewed when it expires soon; a configured one is
 * read again by every reload, so new connections get a renewed certificate, and a broken one
 * rejects the reload while the old one keeps serving.
 */
class HttpsCertificateTest {
  @TempDir Path dir;

  /** A small zone with www.example.test A 192.0.2.80. */
  static final String ZONE =
      """
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: www, type: A, data: 192.0.2.80 }
      """;

  private SluiceConfig config(String tls) throws ConfigException {
    String yaml =
        """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          https: { listen: [127.0.0.1], port: 0 %s }
        stateDir: state
        """
                .formatted(tls)
            + ZONE;
    return ConfigLoader.parse(yaml, "test.yaml", dir);
  }

  private SluiceNode start(SluiceConfig config) throws Exception {
    return SluiceNode.start(config, "test.yaml", AllEndpointsPlanner::new, GslbMetrics.NOOP);
  }

  private static int ask(SluiceNode node, Path trusted) throws Exception {
    return new DohClient(node.httpsPort(), trusted, HttpClient.Version.HTTP_2)
        .get("/resolve?name=www.example.test")
        .statusCode();
  }

  @Test
  void generatedOnFirstStartWithAnOwnerOnlyKeyAndKeptAcrossRestarts() throws Exception {
    Path cert = dir.resolve("state/https.crt");
    Path key = dir.resolve("state/https.key");
    byte[] first;
    try (SluiceNode node = start(config(""))) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
      assertTrue(Files.readString(key).startsWith("-----BEGIN PRIVATE KEY-----"));
      X509Certificate c = GeneratedCertificate.parse(Files.readAllBytes(cert));
      List<String> sans =
          c.getSubjectAlternativeNames().stream().map(l -> l.get(1).toString()).toList();
      assertTrue(sans.contains("localhost") && sans.contains("127.0.0.1"), sans.toString());
      // The client verifies the certificate, its address included.
      assertEquals(200, ask(node, cert));
      first = Files.readAllBytes(cert);
    }
    try (SluiceNode node = start(config(""))) {
      assertArrayEquals(first, Files.readAllBytes(cert), "a restart keeps the certificate");
      assertEquals(200, ask(node, cert));
    }
  }

  @Test
  void aCertificateThatExpiresSoonIsRenewed() throws Exception {
    Path state = dir.resolve("s");
    Instant now = Instant.parse("2030-01-01T00:00:00Z");
    Path cert = GeneratedCertificate.ensure(state, List.of("127.0.0.1"), now)[0];
    byte[] first = Files.readAllBytes(cert);
    GeneratedCertificate.ensure(state, List.of("127.0.0.1"), now.plus(Duration.ofDays(300)));
    assertArrayEquals(first, Files.readAllBytes(cert), "valid for a year: kept");
    GeneratedCertificate.ensure(state, List.of("127.0.0.1"), now.plus(Duration.ofDays(360)));
    assertFalse(java.util.Arrays.equals(first, Files.readAllBytes(cert)), "renewed a week ahead");
  }

  @Test
  void aReloadRenewsAConfiguredCertificateForNewConnections() throws Exception {
    Path a = GeneratedCertificate.ensure(dir.resolve("a"), List.of(), Instant.now())[0];
    Path b = GeneratedCertificate.ensure(dir.resolve("b"), List.of(), Instant.now())[0];
    Path tls = Files.createDirectories(dir.resolve("tls"));
    install(dir.resolve("a"), tls);
    SluiceConfig config = config(", certFile: tls/cert.pem, keyFile: tls/key.pem");
    try (SluiceNode node = start(config)) {
      assertEquals(200, ask(node, a));
      install(dir.resolve("b"), tls);
      node.apply(config, "test.yaml");
      assertEquals(200, ask(node, b), "a new connection gets the renewed certificate");
      assertThrows(java.io.IOException.class, () -> ask(node, a), "the old certificate is gone");
      // A broken certificate rejects the reload, naming the section; the last good one serves.
      Files.writeString(tls.resolve("cert.pem"), "not a certificate");
      ConfigException e =
          assertThrows(ConfigException.class, () -> node.apply(config, "test.yaml"));
      assertTrue(e.getMessage().contains("dns.https"), e.getMessage());
      assertEquals(200, ask(node, b));
    }
  }

  private static void install(Path from, Path tls) throws Exception {
    Files.copy(
        from.resolve(GeneratedCertificate.CERT_FILE),
        tls.resolve("cert.pem"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        from.resolve(GeneratedCertificate.KEY_FILE),
        tls.resolve("key.pem"),
        StandardCopyOption.REPLACE_EXISTING);
  }
}
