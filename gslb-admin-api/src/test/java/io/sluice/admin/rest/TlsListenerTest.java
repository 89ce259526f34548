package io.sluice.admin.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.admin.testing.RecordingControlPlane;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.testing.SelfSignedKeyStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin listener serves TLS from a PEM certificate and key when {@code admin.tls} is set. */
class TlsListenerTest {
  private static final char[] PASSWORD = "test-only".toCharArray();

  @Test
  void servesHttpsWithThePemCertificateAndRefusesPlainHttp(@TempDir Path dir) throws Exception {
    KeyStore ks = selfSigned(dir);
    Path cert = dir.resolve("admin.crt");
    Path key = dir.resolve("admin.key");
    Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate("admin").getEncoded()));
    Files.writeString(
        key, pem("PRIVATE KEY", ((PrivateKey) ks.getKey("admin", PASSWORD)).getEncoded()));
    SluiceConfig config =
        AdminFixture.config("  tls: { certFile: \"" + cert + "\", keyFile: \"" + key + "\" }");
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    try (PrometheusMetrics metrics = new PrometheusMetrics();
        AdminServer server =
            new AdminServer(
                    config.admin(),
                    store,
                    new RecordingControlPlane(store),
                    actor -> {
                      throw new UnsupportedOperationException();
                    },
                    (service, family, client) -> {
                      throw new UnsupportedOperationException();
                    },
                    report -> {},
                    metrics)
                .start()) {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      Certificate c = ks.getCertificate("admin");
      trust.setCertificateEntry("admin", c);
      tmf.init(trust);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      HttpClient https =
          HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> r =
          https.send(
              HttpRequest.newBuilder(
                      URI.create("https://127.0.0.1:" + server.port() + "/api/v1/version"))
                  .header("Authorization", "Bearer " + AdminFixture.VIEWER)
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      assertTrue(r.body().contains("\"snapshotVersion\":1"));
      HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      assertThrows(
          IOException.class,
          () ->
              plain.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString()));
    }
  }

  @Test
  void anUnusableKeyFileIsNamedAtStart(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("admin.crt"), "not a certificate");
    Files.writeString(dir.resolve("admin.key"), "not a key");
    SluiceConfig config =
        AdminFixture.config(
            "  tls: { certFile: \""
                + dir.resolve("admin.crt")
                + "\", keyFile: \""
                + dir.resolve("admin.key")
                + "\" }");
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    try (PrometheusMetrics metrics = new PrometheusMetrics()) {
      AdminServer server =
          new AdminServer(
              config.admin(), store, new RecordingControlPlane(store), null, null, null, metrics);
      IllegalStateException e = assertThrows(IllegalStateException.class, server::start);
      assertTrue(e.getMessage().startsWith("admin.tls: cannot use certFile "), e.getMessage());
      assertTrue(e.getMessage().contains("admin.key"), e.getMessage());
      server.close();
    }
  }

  /** A self-signed certificate for 127.0.0.1, made with the JDK's keytool. */
  private static KeyStore selfSigned(Path dir) throws Exception {
    return SelfSignedKeyStore.create(dir, "admin", "127.0.0.1", "ip:127.0.0.1", PASSWORD);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
