package io.sluice.dns.https;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.xbill.DNS.Message;

/**
 * A real HTTPS client of the DoH/HTTPDNS listener: the JDK's {@link HttpClient} trusting only the
 * given certificate (so the server's certificate is verified, host name included), on HTTP/2 or
 * HTTP/1.1.
 */
public final class DohClient {
  private final HttpClient http;
  private final String base;

  /** A client of {@code https://127.0.0.1:port} trusting {@code certPem}, speaking {@code v}. */
  public DohClient(int port, Path certPem, HttpClient.Version v)
      throws IOException, GeneralSecurityException {
    this.http =
        HttpClient.newBuilder()
            .sslContext(trusting(certPem))
            .version(v)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.base = "https://127.0.0.1:" + port;
  }

  /** A TLS context trusting only the certificate in {@code certPem}. */
  public static SSLContext trusting(Path certPem) throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(certPem)) {
      trust.setCertificateEntry(
          "sluice", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    return ssl;
  }

  /** The hex SHA-256 of {@code token}, as {@code trustedTokens} holds it. */
  public static String sha256Hex(String token) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("SHA-256")
                  .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The base64url (no padding) form of a DNS message, as the {@code dns} parameter wants it. */
  public static String base64url(byte[] wire) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(wire);
  }

  /** {@code GET /dns-query?dns=...} of {@code query}. */
  public HttpResponse<byte[]> get(Message query) throws IOException, InterruptedException {
    return get("/dns-query?dns=" + base64url(query.toWire()));
  }

  /** {@code POST /dns-query} of {@code body} with {@code contentType}. */
  public HttpResponse<byte[]> post(byte[] body, String contentType)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(base + "/dns-query"))
            .header("content-type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  /** {@code GET path}. */
  public HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  /** {@code GET path} with {@code Authorization: Bearer token}. */
  public HttpResponse<byte[]> get(String path, String token)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("authorization", "Bearer " + token)
            .GET());
  }

  /** Any request. */
  public HttpResponse<byte[]> send(HttpRequest.Builder b) throws IOException, InterruptedException {
    return http.send(
        b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** {@code base + path}, for requests built by the caller. */
  public URI uri(String path) {
    return URI.create(base + path);
  }
}
