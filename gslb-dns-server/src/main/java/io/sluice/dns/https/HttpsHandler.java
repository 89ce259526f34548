package io.sluice.dns.https;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.ClientSubnetOption;

/**
 * Answers the requests of the HTTPS listener on the event loop, HTTP/1.1 and HTTP/2 streams alike:
 * {@code /dns-query} (RFC 8484: GET with {@code ?dns=}, POST with an {@code
 * application/dns-message} body) through the {@link Responder} exactly as a TCP query from the
 * connection's address, and {@code /resolve} (HTTPDNS, JSON). Neither blocks: the responder reads
 * one snapshot and never waits.
 */
@Sharable
final class HttpsHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(HttpsHandler.class);

  static final String DOH_PATH = "/dns-query";
  static final String HTTPDNS_PATH = "/resolve";
  static final String DNS_MESSAGE = "application/dns-message";

  /** The largest DNS message (RFC 8484 §6 leaves the limit to the server; TCP's is 65535). */
  static final int MAX_MESSAGE = 65535;

  private static final InetAddress UNKNOWN_CLIENT = InetAddress.getLoopbackAddress();

  private final Responder responder;
  private final Supplier<HttpsSettings> settings;
  private final ClientRateLimit limits;
  private final GslbMetrics metrics;

  HttpsHandler(
      Responder responder,
      Supplier<HttpsSettings> settings,
      ClientRateLimit limits,
      GslbMetrics metrics) {
    this.responder = responder;
    this.settings = settings;
    this.limits = limits;
    this.metrics = metrics;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    QueryStringDecoder uri = new QueryStringDecoder(req.uri());
    String path = uri.path();
    String endpoint = endpointLabel(path);
    FullHttpResponse resp;
    if (req.decoderResult().isFailure()) {
      resp = text(HttpResponseStatus.BAD_REQUEST, "malformed request");
    } else {
      InetAddress client =
          ctx.channel().remoteAddress() instanceof InetSocketAddress remote
              ? remote.getAddress()
              : UNKNOWN_CLIENT;
      try {
        resp =
            switch (endpoint) {
              case "doh" -> doh(req, uri, client);
              case "httpdns" -> httpdns(req, uri, client);
              default -> text(HttpResponseStatus.NOT_FOUND, "not found");
            };
      } catch (RuntimeException | java.io.IOException e) {
        log.warn("failed to answer {} {} from {}", req.method(), path, client, e);
        resp = text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error");
      }
    }
    metrics.httpsRequest(endpoint, methodLabel(req.method()), resp.status().code());
    send(ctx, req, resp);
  }

  static String endpointLabel(String path) {
    return DOH_PATH.equals(path) ? "doh" : HTTPDNS_PATH.equals(path) ? "httpdns" : "other";
  }

  static String methodLabel(HttpMethod m) {
    return HttpMethod.GET.equals(m) ? "GET" : HttpMethod.POST.equals(m) ? "POST" : "other";
  }

  static void send(ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse resp) {
    HttpUtil.setContentLength(resp, resp.content().readableBytes());
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    HttpUtil.setKeepAlive(resp, keepAlive);
    var f = ctx.writeAndFlush(resp);
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private FullHttpResponse doh(FullHttpRequest req, QueryStringDecoder uri, InetAddress client) {
    byte[] query;
    if (HttpMethod.GET.equals(req.method())) {
      List<String> dns = uri.parameters().get("dns");
      if (dns == null || dns.size() != 1 || dns.get(0).isEmpty()) {
        return text(HttpResponseStatus.BAD_REQUEST, "one dns parameter is required");
      }
      try {
        // RFC 8484 §4.1: base64url without padding; padding is tolerated.
        query = Base64.getUrlDecoder().decode(dns.get(0));
      } catch (IllegalArgumentException e) {
        return text(HttpResponseStatus.BAD_REQUEST, "dns is not base64url: " + e.getMessage());
      }
      if (query.length > MAX_MESSAGE) {
        return text(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "dns message too large");
      }
    } else if (HttpMethod.POST.equals(req.method())) {
      if (!isDnsMessage(req.headers().get(HttpHeaderNames.CONTENT_TYPE))) {
        return text(
            HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "content-type must be " + DNS_MESSAGE);
      }
      ByteBuf body = req.content();
      query = new byte[body.readableBytes()];
      body.getBytes(body.readerIndex(), query);
    } else {
      FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "use GET or POST");
      r.headers().set(HttpHeaderNames.ALLOW, "GET, POST");
      return r;
    }
    // A stream transport: answers up to 65535 bytes, never truncated for size, and neither rate
    // limited nor asked for cookies, as over TCP.
    byte[] out = responder.respond(query, query.length, client, Transport.TCP);
    if (out == null) {
      return text(HttpResponseStatus.BAD_REQUEST, "not a DNS query");
    }
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(out));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, DNS_MESSAGE)
        .set(HttpHeaderNames.CACHE_CONTROL, "max-age=" + DnsWire.minTtl(out));
    return r;
  }

  private static boolean isDnsMessage(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semi = contentType.indexOf(';');
    String type = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
    return type.equalsIgnoreCase(DNS_MESSAGE);
  }

  private FullHttpResponse httpdns(FullHttpRequest req, QueryStringDecoder uri, InetAddress client)
      throws java.io.IOException {
    HttpsSettings s = settings.get();
    if (!s.httpdns) {
      return text(HttpResponseStatus.NOT_FOUND, "not found");
    }
    if (!HttpMethod.GET.equals(req.method())) {
      FullHttpResponse r = json(HttpResponseStatus.METHOD_NOT_ALLOWED, "use GET");
      r.headers().set(HttpHeaderNames.ALLOW, "GET");
      return r;
    }
    // A trusted caller (an app's backend relaying for its users) is not limited per address.
    boolean trusted = s.trusted(req.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (!trusted && !limits.allow(client, s)) {
      FullHttpResponse r =
          json(HttpResponseStatus.TOO_MANY_REQUESTS, "too many requests from this network");
      r.headers().set(HttpHeaderNames.RETRY_AFTER, ClientRateLimit.RETRY_AFTER_SECONDS);
      return r;
    }
    try {
      HttpDns.Question q = HttpDns.question(param(uri, "name"), param(uri, "type"));
      String ip = param(uri, "ip");
      ClientSubnetOption subnet;
      if (ip == null) {
        subnet = HttpDns.subnet(client);
      } else if (!trusted) {
        return json(
            HttpResponseStatus.FORBIDDEN,
            "ip= needs a trusted token (Authorization: Bearer <token>)");
      } else {
        subnet = HttpDns.subnet(ip);
      }
      HttpDns.Answer a = HttpDns.resolve(responder, HttpDns.query(q, subnet), client, q);
      FullHttpResponse r =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(a.json()));
      r.headers()
          .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
          // The answer is this client's: shared caches must not hand it to others.
          .set(HttpHeaderNames.CACHE_CONTROL, "private, max-age=" + a.maxAge());
      return r;
    } catch (HttpDns.Refused e) {
      return json(HttpResponseStatus.valueOf(e.status), e.getMessage());
    }
  }

  private static String param(QueryStringDecoder uri, String name) {
    List<String> v = uri.parameters().get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  private static FullHttpResponse text(HttpResponseStatus status, String message) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            status,
            Unpooled.copiedBuffer(message + "\n", java.nio.charset.StandardCharsets.UTF_8));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN);
    return r;
  }

  private static FullHttpResponse json(HttpResponseStatus status, String message) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(HttpDns.error(message)));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    return r;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("closing HTTPS connection from {}", ctx.channel().remoteAddress(), cause);
    ctx.close();
  }
}
