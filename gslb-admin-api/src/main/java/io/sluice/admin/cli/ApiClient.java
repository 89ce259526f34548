package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Calls the admin REST API with a bearer token and turns error answers into {@link CtlException}s
 * with the server's message and the documented exit code. It uses {@link HttpURLConnection} rather
 * than {@code java.net.http.HttpClient}, which sets up TLS even for a plain {@code http://} URL:
 * about 250 classes and the parsed trust store on the path of every {@code rollback}.
 */
final class ApiClient {
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
  private static final int READ_TIMEOUT_MILLIS = 30_000;

  /**
   * How long {@code reload} waits for its answer: a configuration with a million records takes tens
   * of seconds to load, compile and publish, and the reply says whether it was applied.
   */
  static final int RELOAD_TIMEOUT_MILLIS = 600_000;

  /** The TLS context trusting a private CA, or null for the JVM's default. */
  private final SSLContext tls;

  private final String baseUrl;
  private final String token;

  /** A client trusting the CA certificates in {@code caFile} (PEM), or the JVM's when null. */
  ApiClient(String baseUrl, String token, Path caFile) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
    this.tls = caFile == null ? null : trusting(caFile);
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
    return send(method, path, body, READ_TIMEOUT_MILLIS);
  }

  /** Like {@link #send(String, String, Map)}, waiting up to {@code readTimeoutMillis} for data. */
  JsonNode send(String method, String path, Map<String, ?> body, int readTimeoutMillis) {
    return send(
        method,
        path,
        body == null ? null : encodeBody(body),
        "application/json",
        readTimeoutMillis);
  }

  /** Sends {@code bytes} as they are (an upload), typed {@code contentType}. */
  JsonNode sendBytes(String method, String path, byte[] bytes, String contentType) {
    return send(method, path, bytes, contentType, READ_TIMEOUT_MILLIS);
  }

  private JsonNode send(
      String method, String path, byte[] bytes, String contentType, int readTimeoutMillis) {
    return parse(request(method, path, bytes, contentType, readTimeoutMillis, "application/json"));
  }

  /** The body of a GET of {@code path} as text, such as the Prometheus metrics. */
  String getText(String path) {
    return request("GET", path, null, null, READ_TIMEOUT_MILLIS, "text/plain");
  }

  /** The body of a 2xx answer; any other status ends the command with the server's problems. */
  private String request(
      String method,
      String path,
      byte[] bytes,
      String contentType,
      int readTimeoutMillis,
      String accept) {
    HttpURLConnection c;
    try {
      if (!(URI.create(baseUrl + path).toURL().openConnection(Proxy.NO_PROXY)
          instanceof HttpURLConnection h)) {
        throw new IllegalArgumentException("not an http or https URL");
      }
      c = h;
    } catch (IllegalArgumentException | IOException e) {
      throw new CtlException(CtlMain.USAGE, "invalid server URL '" + baseUrl + "'");
    }
    if (tls != null && c instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls.getSocketFactory()); // host names are still verified
    }
    try {
      c.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
      c.setReadTimeout(readTimeoutMillis);
      c.setRequestMethod(method);
      c.setRequestProperty("Authorization", "Bearer " + token);
      c.setRequestProperty("Accept", accept);
      if (bytes != null) {
        c.setRequestProperty("Content-Type", contentType);
        c.setDoOutput(true);
        // Streaming mode also keeps HttpURLConnection from silently re-sending a change.
        c.setFixedLengthStreamingMode(bytes.length);
        try (OutputStream out = c.getOutputStream()) {
          out.write(bytes);
        }
      }
      int status = c.getResponseCode();
      String raw = readBody(status / 100 == 2 ? c.getInputStream() : c.getErrorStream());
      if (status / 100 == 2) {
        return raw;
      }
      throw new CtlException(exitCodeOf(status), describe(status, parse(raw), raw));
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
    } catch (SocketTimeoutException e) {
      throw new CtlException(CtlMain.FAILED, "no answer from " + baseUrl + " in time");
    } catch (IOException e) {
      throw new CtlException(
          CtlMain.FAILED, "request to " + baseUrl + " failed: " + e.getMessage());
    } finally {
      c.disconnect();
    }
  }

  private static byte[] encodeBody(Map<String, ?> body) {
    try {
      return Json.write(body);
    } catch (IOException e) {
      throw new CtlException(CtlMain.FAILED, "cannot encode request: " + e.getMessage());
    }
  }

  private static String readBody(InputStream in) throws IOException {
    if (in == null) {
      return "";
    }
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The JSON body of an error answer, when the caller wants its details (reload problems). */
  static JsonNode parse(String body) {
    try {
      return body == null || body.isEmpty() ? Json.object() : Json.read(body);
    } catch (IOException e) {
      return Json.object().put("message", body);
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
    JsonNode problems = json.path("problems");
    boolean config = problems.size() > 0 && problems.get(0).has("path");
    if (!config && problems.size() > 1) {
      // A rejected request lists every problem, one a line, each with its field.
      sb.append("the request has ").append(problems.size()).append(" problems:");
    } else {
      if (json.hasNonNull("field")) {
        sb.append(json.get("field").asText()).append(": ");
      }
      sb.append(json.hasNonNull("message") ? json.get("message").asText() : raw);
    }
    if (config || problems.size() > 1) {
      for (JsonNode p : problems) {
        String where =
            p.hasNonNull("path")
                ? p.get("path").asText()
                : p.hasNonNull("field") ? p.get("field").asText() : "";
        sb.append("\n  ");
        if (!where.isEmpty()) {
          sb.append(where).append(": ");
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
