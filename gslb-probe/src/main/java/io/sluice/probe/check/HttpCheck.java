package io.sluice.probe.check;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.sluice.core.config.CheckConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * An HTTP(S) request on a fresh connection (so a dead backend is never hidden behind a pooled one),
 * judged by status, body and latency. The Host header and TLS SNI come from {@code host} while the
 * connection goes to the target address, so one backend of a name can be checked directly.
 */
final class HttpCheck implements Check {
  private static final int MAX_BODY = 1 << 20;

  private final EventLoopGroup group;
  private final Executor resolver;
  private final CheckTarget target;
  private final CheckConfig config;
  private final SslContext ssl;
  private final long timeoutNanos;
  private final long maxLatencyNanos;
  private final Set<Integer> expectStatus;
  private final BodyExpectation body;
  private final String hostHeader;

  HttpCheck(
      EventLoopGroup group,
      Executor resolver,
      CheckTarget target,
      CheckConfig config,
      SslContext ssl,
      Duration timeout) {
    this.group = group;
    this.resolver = resolver;
    this.target = target;
    this.config = config;
    this.ssl = ssl;
    this.timeoutNanos = timeout.toNanos();
    this.maxLatencyNanos =
        config.maxLatency() == null ? Long.MAX_VALUE : config.maxLatency().toNanos();
    this.expectStatus = Set.copyOf(config.expectStatus());
    this.body = BodyExpectation.of(config);
    boolean defaultPort = target.port() == config.type().defaultPort();
    String h = config.host() != null ? config.host() : target.authority();
    if (config.host() != null && !defaultPort) {
      h = config.host() + ":" + target.port();
    } else if (config.host() == null && defaultPort) {
      h = target.authority().substring(0, target.authority().lastIndexOf(':'));
    }
    this.hostHeader = h;
  }

  @Override
  public CompletableFuture<CheckResult> run() {
    long start = System.nanoTime();
    CompletableFuture<CheckResult> out = new CompletableFuture<>();
    var timer =
        group
            .next()
            .schedule(
                () ->
                    out.complete(
                        CheckResult.fail(
                            System.nanoTime() - start,
                            "timeout",
                            describe()
                                + ": no complete answer within "
                                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                                + " ms")),
                timeoutNanos,
                TimeUnit.NANOSECONDS);
    out.whenComplete((r, e) -> timer.cancel(false));
    target
        .resolve(resolver)
        .whenComplete(
            (addr, err) -> {
              if (err != null) {
                out.complete(
                    CheckResult.fail(
                        System.nanoTime() - start, "resolve", TcpConnectCheck.message(err)));
              } else if (!out.isDone()) {
                connect(addr, start, out);
              }
            });
    return out;
  }

  private void connect(InetSocketAddress addr, long start, CompletableFuture<CheckResult> out) {
    ChannelFuture f =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)))
            .option(ChannelOption.SO_LINGER, 0)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(sslHandler(ch));
                    }
                    ch.pipeline()
                        .addLast(new HttpClientCodec())
                        .addLast(new HttpObjectAggregator(MAX_BODY))
                        .addLast(new ResponseHandler(start, out));
                  }
                })
            .connect(addr);
    f.addListener(
        (ChannelFuture cf) -> {
          if (!cf.isSuccess()) {
            out.complete(
                CheckResult.fail(
                    System.nanoTime() - start,
                    TcpConnectCheck.reasonOf(cf.cause()),
                    "connect " + target.authority() + ": " + TcpConnectCheck.message(cf.cause())));
            return;
          }
          Channel ch = cf.channel();
          out.whenComplete((r, e) -> ch.close());
          if (TcpConnectCheck.selfConnected(ch)) {
            out.complete(
                CheckResult.fail(
                    System.nanoTime() - start,
                    "refused",
                    "connect " + target.authority() + ": nothing listens"));
            return;
          }
          ch.writeAndFlush(request());
        });
  }

  private SslHandler sslHandler(SocketChannel ch) {
    SslHandler h =
        config.host() != null
            ? ssl.newHandler(ch.alloc(), config.host(), target.port())
            : ssl.newHandler(ch.alloc());
    if (!config.tlsInsecure() && config.host() != null) {
      SSLEngine engine = h.engine();
      SSLParameters params = engine.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(params);
    }
    return h;
  }

  private DefaultFullHttpRequest request() {
    DefaultFullHttpRequest req =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1, HttpMethod.valueOf(config.method()), config.path());
    req.headers()
        .set(HttpHeaderNames.HOST, hostHeader)
        .set(HttpHeaderNames.USER_AGENT, "sluice-probe")
        .set(HttpHeaderNames.ACCEPT, "*/*")
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
        .set(HttpHeaderNames.CONTENT_LENGTH, 0);
    for (Map.Entry<String, String> h : config.headers().entrySet()) {
      req.headers().set(h.getKey(), h.getValue());
    }
    return req;
  }

  /** Judges the one response of the connection. */
  private final class ResponseHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
    private final long start;
    private final CompletableFuture<CheckResult> out;

    ResponseHandler(long start, CompletableFuture<CheckResult> out) {
      this.start = start;
      this.out = out;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse res) {
      long rtt = System.nanoTime() - start;
      int status = res.status().code();
      if (!expectStatus.contains(status)) {
        out.complete(
            CheckResult.fail(
                rtt, "status", describe() + ": status " + status + ", expected " + expected()));
        return;
      }
      if (!body.isEmpty()) {
        String problem = body.problem(res.content().toString(StandardCharsets.UTF_8));
        if (problem != null) {
          out.complete(CheckResult.fail(rtt, "body", describe() + ": " + problem));
          return;
        }
      }
      if (rtt > maxLatencyNanos) {
        out.complete(
            CheckResult.fail(
                rtt,
                "latency",
                describe()
                    + ": answered in "
                    + TimeUnit.NANOSECONDS.toMillis(rtt)
                    + " ms, bound is "
                    + TimeUnit.NANOSECONDS.toMillis(maxLatencyNanos)
                    + " ms"));
        return;
      }
      out.complete(CheckResult.pass(rtt));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      String reason = "io";
      for (Throwable c = cause; c != null; c = c.getCause()) {
        if (c instanceof SSLException) {
          reason = "tls";
        }
      }
      out.complete(
          CheckResult.fail(
              System.nanoTime() - start,
              reason,
              describe() + ": " + TcpConnectCheck.message(cause)));
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      out.complete(
          CheckResult.fail(
              System.nanoTime() - start,
              "io",
              describe() + ": connection closed before an answer"));
    }
  }

  private String expected() {
    List<Integer> sorted = expectStatus.stream().sorted().toList();
    return sorted.size() == 1 ? sorted.get(0).toString() : sorted.toString();
  }

  @Override
  public String describe() {
    return config.type() + " " + config.method() + " " + target.authority() + config.path();
  }
}
