package io.sluice.dns.https;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AsciiString;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.ClientSubnetOption;

/**
 * Answers the requests of the HTTPS listener, whatever the HTTP version: {@code /dns-query} (RFC
 * 8484: GET with {@code ?dns=}, POST with an {@code application/dns-message} body) through the
 * {@link Responder} exactly as a TCP query from the connection's address, and {@code /resolve}
 * (HTTPDNS, JSON). Called on the connection's event loop; nothing here blocks: the responder reads
 * one snapshot and never waits. Every answer is counted by endpoint, method and status.
 */
final class HttpsAnswers {
  private static final Logger log = LoggerFactory.getLogger(HttpsAnswers.class);

  static final String DOH_PATH = "/dns-query";
  static final String HTTPDNS_PATH = "/resolve";
  static final String DNS_MESSAGE = "application/dns-message";
  static final String JSON = "application/json";
  static final String TEXT = "text/plain; charset=utf-8";

  /** The largest DNS message (RFC 8484 §6 leaves the limit to the server; TCP's is 65535). */
  static final int MAX_MESSAGE = 65535;

  /** One request: what the answer depends on, read from HTTP/1.1 or HTTP/2 alike. */
  record Request(
      HttpMethod method,
      String uri,
      String contentType,
      String authorization,
      byte[] body,
      InetAddress client) {}

  /** One answer: its status, the headers it may carry (null: absent) and its body. */
  record Reply(
      int status,
      String contentType,
      String cacheControl,
      String allow,
      String retryAfter,
      byte[] body) {

    static Reply text(int status, String message) {
      return new Reply(
          status, TEXT, null, null, null, (message + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static Reply json(int status, String message) {
      return new Reply(status, JSON, null, null, null, HttpDns.error(message));
    }

    Reply allowing(String methods) {
      return new Reply(status, contentType, cacheControl, methods, retryAfter, body);
    }

    /** Hands every header of this reply to {@code set}, content type and length included. */
    void headers(BiConsumer<AsciiString, String> set) {
      set.accept(HttpHeaderNames.CONTENT_TYPE, contentType);
      set.accept(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
      if (cacheControl != null) {
        set.accept(HttpHeaderNames.CACHE_CONTROL, cacheControl);
      }
      if (allow != null) {
        set.accept(HttpHeaderNames.ALLOW, allow);
      }
      if (retryAfter != null) {
        set.accept(HttpHeaderNames.RETRY_AFTER, retryAfter);
      }
    }
  }

  private final Responder responder;
  private final Supplier<HttpsSettings> settings;
  private final ClientRateLimit limits;
  private final GslbMetrics metrics;

  HttpsAnswers(
      Responder responder,
      Supplier<HttpsSettings> settings,
      ClientRateLimit limits,
      GslbMetrics metrics) {
    this.responder = responder;
    this.settings = settings;
    this.limits = limits;
    this.metrics = metrics;
  }

  /** The answer to {@code req}, counted. */
  Reply answer(Request req) {
    QueryStringDecoder uri = new QueryStringDecoder(req.uri());
    String path = uri.path();
    String endpoint = endpointLabel(path);
    Reply reply;
    try {
      reply =
          switch (endpoint) {
            case "doh" -> doh(req, uri);
            case "httpdns" -> httpdns(req, uri);
            default -> Reply.text(404, "not found");
          };
    } catch (RuntimeException | IOException e) {
      log.warn("failed to answer {} {} from {}", req.method(), path, req.client(), e);
      reply = Reply.text(500, "internal error");
    }
    count(path, req.method(), reply.status());
    return reply;
  }

  /** Counts an answer the HTTP layer gave itself (a malformed or oversized request). */
  void count(String path, HttpMethod method, int status) {
    metrics.httpsRequest(endpointLabel(path), methodLabel(method), status);
  }

  static String endpointLabel(String path) {
    return DOH_PATH.equals(path) ? "doh" : HTTPDNS_PATH.equals(path) ? "httpdns" : "other";
  }

  static String methodLabel(HttpMethod m) {
    return HttpMethod.GET.equals(m) ? "GET" : HttpMethod.POST.equals(m) ? "POST" : "other";
  }

  /** The path of a request target, for counting a request that is not answered here. */
  static String path(String uri) {
    return new QueryStringDecoder(uri).path();
  }

  private Reply doh(Request req, QueryStringDecoder uri) {
    byte[] query;
    if (HttpMethod.GET.equals(req.method())) {
      List<String> dns = uri.parameters().get("dns");
      if (dns == null || dns.size() != 1 || dns.get(0).isEmpty()) {
        return Reply.text(400, "one dns parameter is required");
      }
      try {
        // RFC 8484 §4.1: base64url without padding; padding is tolerated.
        query = Base64.getUrlDecoder().decode(dns.get(0));
      } catch (IllegalArgumentException e) {
        return Reply.text(400, "dns is not base64url: " + e.getMessage());
      }
      if (query.length > MAX_MESSAGE) {
        return Reply.text(413, "dns message too large");
      }
    } else if (HttpMethod.POST.equals(req.method())) {
      if (!isDnsMessage(req.contentType())) {
        return Reply.text(415, "content-type must be " + DNS_MESSAGE);
      }
      query = req.body();
    } else {
      return Reply.text(405, "use GET or POST").allowing("GET, POST");
    }
    // A stream transport: answers up to 65535 bytes, never truncated for size, and neither rate
    // limited nor asked for cookies, as over TCP.
    byte[] out = responder.respond(query, query.length, req.client(), Transport.TCP);
    if (out == null) {
      return Reply.text(400, "not a DNS query");
    }
    return new Reply(200, DNS_MESSAGE, "max-age=" + DnsWire.minTtl(out), null, null, out);
  }

  private static boolean isDnsMessage(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semi = contentType.indexOf(';');
    String type = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
    return type.equalsIgnoreCase(DNS_MESSAGE);
  }

  private Reply httpdns(Request req, QueryStringDecoder uri) throws IOException {
    HttpsSettings s = settings.get();
    if (!s.httpdns) {
      return Reply.text(404, "not found");
    }
    if (!HttpMethod.GET.equals(req.method())) {
      return Reply.json(405, "use GET").allowing("GET");
    }
    // A trusted caller (an app's backend relaying for its users) is not limited per address.
    boolean trusted = s.trusted(req.authorization());
    if (!trusted && !limits.allow(req.client(), s)) {
      Reply r = Reply.json(429, "too many requests from this network");
      return new Reply(
          r.status(),
          r.contentType(),
          null,
          null,
          Integer.toString(ClientRateLimit.RETRY_AFTER_SECONDS),
          r.body());
    }
    try {
      HttpDns.Question q = HttpDns.question(param(uri, "name"), param(uri, "type"));
      String ip = param(uri, "ip");
      ClientSubnetOption subnet;
      if (ip == null) {
        subnet = HttpDns.subnet(req.client());
      } else if (!trusted) {
        return Reply.json(403, "ip= needs a trusted token (Authorization: Bearer <token>)");
      } else {
        subnet = HttpDns.subnet(ip);
      }
      HttpDns.Answer a = HttpDns.resolve(responder, HttpDns.query(q, subnet), req.client(), q);
      // The answer is this client's: shared caches must not hand it to others.
      return new Reply(200, JSON, "private, max-age=" + a.maxAge(), null, null, a.json());
    } catch (HttpDns.Refused e) {
      return Reply.json(e.status, e.getMessage());
    }
  }

  private static String param(QueryStringDecoder uri, String name) {
    List<String> v = uri.parameters().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }
}
