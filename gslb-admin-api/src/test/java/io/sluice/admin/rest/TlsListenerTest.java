package io.sluice.admin.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.admin.testing.RecordingControlPlane;
import io.sluice.admin.testing.TestCertificate;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin listener serves TLS from a PEM certificate and key when {@code admin.tls} is set. */
class TlsListenerTest {
  @Test
  void servesHttpsWithThePemCertificateAndRefusesPlainHttp(@TempDir Path dir) throws Exception {
    TestCertificate cert = TestCertificate.create(dir);
    SluiceConfig config = AdminFixture.config(cert.adminTls());
    try (PrometheusMetrics metrics = new PrometheusMetrics();
        AdminServer server = AdminFixture.listenerOnly(config, metrics)) {
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("admin", cert.certificate());
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
}
