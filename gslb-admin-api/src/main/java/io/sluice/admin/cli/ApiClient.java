package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Calls the admin REST API with a bearer token and turns error answers into {@link CtlException}s
 * with the server's message and the documented exit code.
 */
final class ApiClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http;
  private final String baseUrl;
  private final String token;

  /** A client trusting the CA certificates in {@code caFile} (PEM), or the JVM's when null. */
  ApiClient(String baseUrl, String token, Path caFile) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (caFile != null) {
      b.sslContext(trusting(caFile));
    }
    this.http = b.build();
  }

  /** TLS that trusts exactly the certificates in a PEM file; host names are still verified. */
  static SSLContext trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      Collection<? extends Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new CtlException(CtlMain.USAGE, "CA file " + caFile + " holds no PEM certificate");
      }
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c : certs) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, tmf.getTrustManagers(), null);
      return tls;
    } catch (NoSuchFileException e) {
      throw new CtlException(CtlMain.USAGE, "CA file not found: " + caFile);
    } catch (IOException | GeneralSecurityException e) {
      throw new CtlException(CtlMain.USAGE, "cannot use CA file " + caFile + ": " + e.getMessage());
    }
  }

  JsonNode get(String path) {
    return send("GET", path, null);
  }

  JsonNode send(String method, String path, Map<String, ?> body) {
    HttpRequest.Builder b;
    try {
      b =
          HttpRequest.newBuilder(URI.create(baseUrl + path))
              .timeout(Duration.ofSeconds(30))
              .header("Authorization", "Bearer " + token)
              .header("Accept", "application/json");
    } catch (IllegalArgumentException e) {
      throw new CtlException(CtlMain.USAGE, "invalid server URL '" + baseUrl + "'");
    }
    if (body == null) {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      try {
        b.method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        b.header("Content-Type", "application/json");
      } catch (IOException e) {
        throw new CtlException(CtlMain.FAILED, "cannot encode request: " + e.getMessage());
      }
    }
    HttpResponse<String> r;
    try {
      r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new CtlException(CtlMain.FAILED, "cannot connect to " + baseUrl + " (is it running?)");
    } catch (SSLHandshakeException e) {
      throw new CtlException(
          CtlMain.FAILED,
          "TLS handshake with "
              + baseUrl
              + " failed: "
              + e.getMessage()
              + " (a node whose certificate a private CA signed needs --ca-file or caFile=)");
    } catch (HttpTimeoutException e) {
      throw new CtlException(CtlMain.FAILED, "no answer from " + baseUrl + " in time");
    } catch (IOException e) {
      throw new CtlException(
          CtlMain.FAILED, "request to " + baseUrl + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CtlException(CtlMain.FAILED, "interrupted");
    }
    JsonNode json = parse(r.body());
    int status = r.statusCode();
    if (status / 100 == 2) {
      return json;
    }
    throw new CtlException(exitCodeOf(status), describe(status, json, r.body()));
  }

  /** The JSON body of an error answer, when the caller wants its details (reload problems). */
  static JsonNode parse(String body) {
    try {
      return body == null || body.isEmpty() ? JSON.createObjectNode() : JSON.readTree(body);
    } catch (IOException e) {
      return JSON.createObjectNode().put("message", body);
    }
  }

  static int exitCodeOf(int status) {
    return switch (status) {
      case 401, 403, 409, 429 -> CtlMain.REFUSED;
      default -> CtlMain.FAILED;
    };
  }

  private static String describe(int status, JsonNode json, String raw) {
    StringBuilder sb = new StringBuilder();
    switch (status) {
      case 401 -> sb.append("unauthorised: ");
      case 403 -> sb.append("refused: ");
      case 409 -> sb.append("refused (conflict): ");
      case 429 -> sb.append("too many failed logins, retry later: ");
      default -> sb.append("error ").append(status).append(": ");
    }
    if (json.hasNonNull("field")) {
      sb.append(json.get("field").asText()).append(": ");
    }
    sb.append(json.hasNonNull("message") ? json.get("message").asText() : raw);
    if (json.has("problems")) {
      for (JsonNode p : json.get("problems")) {
        sb.append("\n  ");
        if (p.hasNonNull("path") && !p.get("path").asText().isEmpty()) {
          sb.append(p.get("path").asText()).append(": ");
        }
        sb.append(p.path("message").asText());
      }
    }
    if (json.hasNonNull("errorId")) {
      sb.append(" (error id ").append(json.get("errorId").asText()).append(")");
    }
    return sb.toString();
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
