package io.sluice.admin.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import io.sluice.admin.auth.FailedAuthLimiter;
import io.sluice.admin.auth.Role;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.core.control.Actor;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.Problem;
import io.sluice.core.spi.Ticker;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.store.StoreUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one aggregated HTTP request into a routed, authenticated {@link ApiRequest} and writes the
 * answer. Every failure becomes a JSON error: 4xx with the field and reason, or a generic 500 whose
 * error id points to the logged details.
 */
@ChannelHandler.Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(AdminHandler.class);
  private static final AttributeKey<Pending> PENDING = AttributeKey.valueOf("sluice.admin.pending");
  private static final int MAX_PIPELINED = 16;

  private final Router router;
  private final TokenAuthenticator authenticator;
  private final FailedAuthLimiter limiter;
  private final ScopeGuard scopes;
  private final Ticker ticker;
  private final ObjectMapper mapper;
  private final ConnectionGuard guard;
  private final Executor reads;
  private final Executor commands;

  /**
   * Traffic commands and reloads run on {@code commands}, everything else (reads of state and
   * history, probe reports) on {@code reads}, so a command never queues behind slow reads.
   */
  AdminHandler(
      Router router,
      TokenAuthenticator authenticator,
      FailedAuthLimiter limiter,
      ScopeGuard scopes,
      Ticker ticker,
      ObjectMapper m,
      ConnectionGuard guard,
      Executor reads,
      Executor commands) {
    this.router = router;
    this.authenticator = authenticator;
    this.limiter = limiter;
    this.scopes = scopes;
    this.ticker = ticker;
    this.mapper = m;
    this.guard = guard;
    this.reads = reads;
    this.commands = commands;
  }

  /**
   * Requests of one connection waiting for their turn: answers must leave in request order, so a
   * connection has at most one request in the executor. Touched only on the channel's event loop.
   */
  private static final class Pending {
    final ArrayDeque<FullHttpRequest> queue = new ArrayDeque<>();
    boolean busy;
  }

  /**
   * A request routed and authenticated on the I/O thread (both are cheap and never block): either
   * an immediate answer, or the route to run with its caller.
   */
  private record Prepared(
      FullHttpResponse answer,
      boolean keepAlive,
      Router.Match match,
      QueryStringDecoder uri,
      Actor actor,
      String source) {
    /** Answered on the I/O thread; {@code actor} is the caller when it presented a valid token. */
    static Prepared answered(FullHttpResponse answer, boolean keepAlive, Actor actor) {
      return new Prepared(answer, keepAlive, null, null, actor, null);
    }

    /** To run on a handler thread. */
    static Prepared toRun(
        boolean keepAlive, Router.Match match, QueryStringDecoder uri, Actor actor, String source) {
      return new Prepared(null, keepAlive, match, uri, actor, source);
    }

    Route route() {
      return match == null ? null : match.route();
    }

    boolean authenticated() {
      return actor != null;
    }

    /** Changes of traffic or configuration: never queued behind reads. */
    boolean command() {
      Route route = route();
      return route != null
          && !route.method().equals("GET")
          && (route.role() == Role.OPERATOR || route.role() == Role.ADMIN);
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest http) {
    guard.requestReceived(ctx.channel());
    Pending pending = ctx.channel().attr(PENDING).setIfAbsent(new Pending());
    if (pending == null) {
      pending = ctx.channel().attr(PENDING).get();
    }
    http.retain();
    if (pending.busy) {
      if (pending.queue.size() >= MAX_PIPELINED) {
        http.release();
        ctx.close();
        return;
      }
      pending.queue.add(http);
      return;
    }
    pending.busy = true;
    submit(ctx, pending, http);
  }

  /** On the event loop: prepares the request and answers it or hands it to its executor. */
  private void submit(ChannelHandlerContext ctx, Pending pending, FullHttpRequest http) {
    Prepared p;
    try {
      p = prepare(ctx, http);
    } catch (RuntimeException e) {
      p =
          Prepared.answered(
              internal(e, http.method().name(), http.uri(), source(ctx)), false, null);
    }
    if (p.answer() != null) {
      http.release();
      finish(ctx, p.answer(), p.keepAlive(), p.authenticated());
      next(ctx, pending);
      return;
    }
    Prepared prepared = p;
    try {
      (p.command() ? commands : reads)
          .execute(
              () -> {
                FullHttpResponse r = null;
                try {
                  r = run(http, prepared);
                } catch (Throwable t) {
                  // Only an Error gets here; the client must not wait for an answer that never
                  // comes.
                  log.error("admin request failed", t);
                  ctx.close();
                  throw t;
                } finally {
                  http.release();
                  FullHttpResponse answer = r;
                  // One hand-over to the I/O thread per request, not one for the write and one
                  // for the next request: each wakes the selector under a lock the I/O thread
                  // needs too, and a handler thread preempted while holding it stalls every
                  // connection, a rollback's included.
                  ctx.executor()
                      .execute(
                          () -> {
                            if (answer != null) {
                              finish(ctx, answer, prepared.keepAlive(), prepared.authenticated());
                            }
                            next(ctx, pending);
                          });
                }
              });
    } catch (RejectedExecutionException e) {
      http.release();
      finish(
          ctx,
          error(
              new ApiException(503, "busy", null, "the admin API is overloaded; retry"), Map.of()),
          false,
          prepared.authenticated());
      next(ctx, pending);
    }
  }

  /** On the event loop: starts the connection's next request, if any. */
  private void next(ChannelHandlerContext ctx, Pending pending) {
    FullHttpRequest queued = pending.queue.poll();
    if (queued == null) {
      pending.busy = false;
    } else if (!ctx.channel().isActive()) {
      queued.release();
      next(ctx, pending);
    } else {
      submit(ctx, pending, queued);
    }
  }

  /**
   * A connection silent for the idle timeout is closed only between requests: one whose request is
   * still being executed (a reload of a large configuration takes longer than the timeout) keeps
   * its connection until the reply is written, and idleness counts again from there.
   */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      Pending pending = ctx.channel().attr(PENDING).get();
      if (pending == null || !pending.busy) {
        log.debug("admin connection from {} closed: idle", source(ctx));
        ctx.close();
      }
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    Pending pending = ctx.channel().attr(PENDING).get();
    if (pending != null) {
      for (FullHttpRequest r; (r = pending.queue.poll()) != null; ) {
        r.release();
      }
    }
    super.channelInactive(ctx);
  }

  private void finish(
      ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive, boolean trusted) {
    guard.requestAnswered(ctx.channel(), trusted);
    write(ctx, response, keepAlive);
  }

  private static void write(
      ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
    HttpUtil.setContentLength(response, response.content().readableBytes());
    if (keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(response);
    } else {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * Decodes, routes and authenticates a request. A caller presenting a valid token is never refused
   * by the failed-login limit: only callers without one wait out the window.
   */
  private Prepared prepare(ChannelHandlerContext ctx, FullHttpRequest http) {
    String source = source(ctx);
    String method = http.method().name();
    if (!http.decoderResult().isSuccess()) {
      return answer(
          error(new ApiException(400, "bad_request", null, "malformed HTTP request"), Map.of()),
          false);
    }
    boolean keepAlive = HttpUtil.isKeepAlive(http);
    QueryStringDecoder uri = new QueryStringDecoder(http.uri());
    String path;
    Map<String, List<String>> query;
    Router.Match match;
    try {
      path = uri.path();
      query = uri.parameters();
      match = router.match(method, path);
    } catch (ApiException e) {
      return answer(error(e, Map.of()), keepAlive);
    } catch (IllegalArgumentException e) {
      // Netty rejects a malformed percent-encoding such as %ZZ.
      log.warn(
          "malformed request URI from {}: {} {}",
          source,
          LogText.escape(method),
          LogText.escape(http.uri()));
      return answer(
          error(
              new ApiException(
                  400, "bad_request", null, "malformed percent-encoding in the request URI"),
              Map.of()),
          keepAlive);
    }
    if (match == null) {
      return answer(error(ApiException.notFound(null, "no route " + path), Map.of()), keepAlive);
    }
    if (match.route() == null) {
      return answer(
          error(
              new ApiException(
                  405, "method_not_allowed", null, method + " is not allowed on " + path),
              Map.of("Allow", String.join(", ", match.allowedMethods()))),
          keepAlive);
    }
    Route route = match.route();
    Actor actor = null;
    if (route.role() != null) {
      TokenAuthenticator.Check who =
          authenticator.check(
              http.headers().get(HttpHeaderNames.AUTHORIZATION), ticker.currentTimeMillis());
      if (!(who instanceof TokenAuthenticator.Accepted accepted)) {
        long retryAfter = limiter.retryAfterSeconds(source);
        if (retryAfter > 0) {
          return answer(
              error(
                  new ApiException(
                      429,
                      "too_many_requests",
                      null,
                      "too many failed authentications; retry later"),
                  Map.of("Retry-After", Long.toString(retryAfter))),
              keepAlive);
        }
        limiter.recordFailure(source);
        log.warn(
            "authentication failed from {} for {} {} ({})",
            source,
            LogText.escape(method),
            LogText.escape(path),
            who instanceof TokenAuthenticator.Expired x
                ? "token '" + LogText.escape(x.name()) + "' expired at " + x.at()
                : http.headers().contains(HttpHeaderNames.AUTHORIZATION)
                    ? "unknown token"
                    : "no bearer token");
        return answer(
            error(
                who instanceof TokenAuthenticator.Expired x
                    ? new ApiException(
                        401,
                        "token_expired",
                        null,
                        "token '" + x.name() + "' expired at " + x.at() + "; ask for a new one")
                    : new ApiException(
                        401, "unauthorized", null, "a valid bearer token is required"),
                Map.of("WWW-Authenticate", "Bearer")),
            keepAlive);
      }
      actor = accepted.actor();
      if (!Role.of(actor.role()).permits(route.role())) {
        log.warn(
            "{} (role {}) from {} refused {} {}",
            LogText.escape(actor.name()),
            actor.role(),
            source,
            LogText.escape(method),
            LogText.escape(path));
        return Prepared.answered(
            error(
                new ApiException(
                    403,
                    "forbidden",
                    null,
                    "role '"
                        + actor.role()
                        + "' may not do this; it needs '"
                        + route.role().label()
                        + "'"),
                Map.of()),
            keepAlive,
            actor);
      }
    }
    if (actor != null && actor.scope() != null) {
      try {
        scopes.check(route, match.params(), actor);
      } catch (ApiException e) {
        log.warn(
            "{} (scope {}) from {} refused {} {}",
            LogText.escape(actor.name()),
            actor.scope().describe(),
            source,
            LogText.escape(method),
            LogText.escape(path));
        return Prepared.answered(error(e, Map.of()), keepAlive, actor);
      }
    }
    return Prepared.toRun(keepAlive, match, uri, actor, source);
  }

  private static Prepared answer(FullHttpResponse r, boolean keepAlive) {
    return Prepared.answered(r, keepAlive, null);
  }

  /** On a handler thread: runs the prepared route. */
  private FullHttpResponse run(FullHttpRequest http, Prepared p) {
    String method = p.route().method();
    Actor actor = p.actor();
    try {
      ApiRequest req =
          new ApiRequest(
              method,
              p.uri().path(),
              p.match().params(),
              p.uri().parameters(),
              http.headers().get("Idempotency-Key"),
              ByteBufUtil.getBytes(http.content()),
              actor,
              p.source());
      ApiResponse answer = p.route().handler().handle(req);
      if (!method.equals("GET") && actor != null) {
        // Changes are audited by the control plane; this line ties them to the HTTP exchange.
        log.info(
            "{} ({}) from {}: {} {} -> {}",
            LogText.escape(actor.name()),
            actor.role(),
            p.source(),
            method,
            LogText.escape(p.uri().path()),
            answer.status());
      }
      return render(answer, acceptsGzip(http));
    } catch (ApiException e) {
      return error(e, Map.of());
    } catch (CommandRejectedException e) {
      return error(
          e.conflict()
              ? ApiException.of(409, "conflict", e.problems())
              : ApiException.of(400, "rejected", e.problems()),
          Map.of());
    } catch (StoreUnavailableException e) {
      // Nothing was published or acknowledged; say why instead of a generic internal error.
      log.error(
          "{} {} from {}: {}", method, LogText.escape(p.uri().path()), p.source(), e.getMessage());
      return error(
          new ApiException(
              e.full() ? 507 : 503,
              e.full() ? "state_directory_full" : "state_store_unavailable",
              null,
              e.getMessage()),
          Map.of());
    } catch (ClusterUnreachableException e) {
      // A node cut off from the cluster's store changes nothing on its own: say so, and why.
      log.error(
          "{} {} from {}: {}", method, LogText.escape(p.uri().path()), p.source(), e.getMessage());
      return error(new ApiException(503, "cluster_unreachable", null, e.getMessage()), Map.of());
    } catch (Exception e) {
      return internal(e, method, p.uri().path(), p.source());
    }
  }

  private FullHttpResponse internal(Exception e, String method, String path, String source) {
    String id = UUID.randomUUID().toString();
    log.error(
        "internal error {} on {} {} from {}",
        id,
        LogText.escape(method),
        LogText.escape(path),
        source,
        e);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", "internal");
    body.put("errorId", id);
    body.put("message", "internal error; the server log has the details under this error id");
    return json(HttpResponseStatus.INTERNAL_SERVER_ERROR, body, Map.of());
  }

  private static String source(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a
        ? a.getAddress().getHostAddress()
        : String.valueOf(ctx.channel().remoteAddress());
  }

  /** Whether the client takes a gzip body ({@code Accept-Encoding: gzip}, as Prometheus sends). */
  private static boolean acceptsGzip(FullHttpRequest http) {
    String accept = http.headers().get(HttpHeaderNames.ACCEPT_ENCODING);
    if (accept == null) {
      return false;
    }
    for (String coding : accept.split(",")) {
      String[] parts = coding.split(";");
      String name = parts[0].trim().toLowerCase(Locale.ROOT);
      boolean refused = parts.length > 1 && parts[1].replace(" ", "").matches("q=0(\\.0*)?");
      if ((name.equals("gzip") || name.equals("*")) && !refused) {
        return true;
      }
    }
    return false;
  }

  /** Text bodies at least this long go out gzipped to a client that takes it. */
  private static final int GZIP_MIN_BYTES = 4096;

  private FullHttpResponse render(ApiResponse r, boolean gzip) throws Exception {
    if (r.bytes() != null) {
      // A scrape of a large configuration is tens of megabytes of text that compresses 20-fold;
      // the fastest level costs about half of what writing the scrape costs.
      boolean compress =
          gzip && r.bytes().length >= GZIP_MIN_BYTES && r.contentType().startsWith("text/");
      FullHttpResponse out =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(r.status()),
              Unpooled.wrappedBuffer(compress ? gzipped(r.bytes()) : r.bytes()));
      out.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
      if (compress) {
        out.headers().set(HttpHeaderNames.CONTENT_ENCODING, HttpHeaderValues.GZIP);
      }
      if (r.contentType().startsWith("text/")) {
        out.headers().set(HttpHeaderNames.VARY, HttpHeaderNames.ACCEPT_ENCODING);
      }
      return out;
    }
    if (r.text() != null) {
      FullHttpResponse out =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(r.status()),
              Unpooled.wrappedBuffer(r.text().getBytes(StandardCharsets.UTF_8)));
      out.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
      return out;
    }
    return json(HttpResponseStatus.valueOf(r.status()), r.json(), Map.of());
  }

  private static byte[] gzipped(byte[] body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 16 + 64);
    try (GZIPOutputStream z =
        new GZIPOutputStream(out, 1 << 16) {
          {
            def.setLevel(Deflater.BEST_SPEED);
          }
        }) {
      z.write(body);
    }
    return out.toByteArray();
  }

  private FullHttpResponse error(ApiException e, Map<String, String> headers) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", e.error());
    body.put("field", e.field());
    body.put("message", e.getMessage());
    List<Map<String, String>> problems = new ArrayList<>();
    for (Problem p : e.problems()) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("field", p.field());
      m.put("message", p.message());
      problems.add(m);
    }
    body.put("problems", problems);
    return json(HttpResponseStatus.valueOf(e.status()), body, headers);
  }

  private FullHttpResponse json(
      HttpResponseStatus status, Object body, Map<String, String> headers) {
    byte[] bytes;
    try {
      bytes = mapper.writeValueAsBytes(body);
    } catch (Exception e) {
      String id = UUID.randomUUID().toString();
      log.error("cannot serialize response {}", id, e);
      status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
      bytes =
          ("{\"error\":\"internal\",\"errorId\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
    }
    FullHttpResponse out =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    out.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
    out.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    headers.forEach((k, v) -> out.headers().set(k, v));
    return out;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("admin connection from {} closed on error: {}", source(ctx), cause.toString());
    ctx.close();
  }
}
