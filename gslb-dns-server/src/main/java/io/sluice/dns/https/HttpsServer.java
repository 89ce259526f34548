package io.sluice.dns.https;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.core.config.Addresses;
import io.sluice.core.config.HttpsConfig;
import io.sluice.core.net.ClientSource;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HttpsCloseReason;
import io.sluice.core.spi.Ticker;
import io.sluice.dns.response.Responder;
import io.sluice.dns.server.InheritedSockets;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DNS over HTTPS and HTTPDNS listener: TLS on every configured address and one port, HTTP/2 or
 * HTTP/1.1 as ALPN negotiates, every request answered on its connection's event loop by {@link
 * HttpsAnswers}. A new connection gets the TLS context of the configuration being served, so a
 * reload that renews the certificate applies to the next connection.
 */
public final class HttpsServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpsServer.class);

  /** Streams a client may have open at once on one HTTP/2 connection. */
  private static final int MAX_CONCURRENT_STREAMS = 100;

  /** Longest request line or header of HTTP/1.1: a GET of the largest DNS message in base64url. */
  private static final int MAX_INITIAL_LINE = 4 * HttpsAnswers.MAX_MESSAGE / 3 + 1024;

  private final EventLoopGroup group;
  private final List<Channel> channels;
  private final int port;
  private final ConnectionCap cap;
  private final InheritedSockets.Held held;

  private HttpsServer(
      EventLoopGroup group,
      List<Channel> channels,
      int port,
      ConnectionCap cap,
      InheritedSockets.Held held) {
    this.group = group;
    this.channels = channels;
    this.port = port;
    this.cap = cap;
    this.held = held;
  }

  /**
   * Binds every listener of {@code config} on {@code threads} event loops, answering through {@code
   * responder} with the settings {@code settings} returns for each new connection and request;
   * {@code ticker} times the HTTPDNS rate limits.
   */
  public static HttpsServer start(
      HttpsConfig config,
      int threads,
      Responder responder,
      Supplier<HttpsSettings> settings,
      GslbMetrics metrics,
      Ticker ticker)
      throws InterruptedException {
    return start(config, threads, responder, settings, metrics, ticker, InheritedSockets.NONE);
  }

  /**
   * As {@link #start(HttpsConfig, int, Responder, Supplier, GslbMetrics, Ticker)}, accepting on the
   * sockets of {@code inherited} that match the configured addresses instead of binding new ones (a
   * zero-downtime restart).
   */
  public static HttpsServer start(
      HttpsConfig config,
      int threads,
      Responder responder,
      Supplier<HttpsSettings> settings,
      GslbMetrics metrics,
      Ticker ticker,
      InheritedSockets inherited)
      throws InterruptedException {
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            threads, new DefaultThreadFactory("sluice-https", true), io);
    HttpsAnswers answers =
        new HttpsAnswers(responder, settings, new ClientRateLimit(ticker), metrics);
    long idleNanos = config.idleTimeout().toNanos();
    long requestNanos = config.requestTimeout().toNanos();
    ConnectionCap cap =
        new ConnectionCap(config.maxConnections(), config.maxConnectionsPerSource(), metrics);
    IdleCloser idle = new IdleCloser(metrics);
    Runnable timedOut = () -> metrics.httpsClosed(HttpsCloseReason.REQUEST_TIMEOUT);
    ChannelInitializer<Channel> init =
        new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            ChannelPipeline p = ch.pipeline();
            p.addLast(cap);
            p.addLast(new IdleStateHandler(0, 0, idleNanos, TimeUnit.NANOSECONDS));
            p.addLast(idle);
            // In front of TLS: a request's clock starts at its first encrypted byte.
            RequestDeadline deadline = new RequestDeadline(requestNanos, timedOut);
            p.addLast(deadline);
            SslHandler ssl = settings.get().ssl.newHandler(ch.alloc());
            // The handshake has SslHandler's own timeout; the requests' clock starts after it.
            ssl.handshakeFuture().addListener(f -> deadline.quiet());
            p.addLast(ssl);
            p.addLast(new Negotiation(answers, deadline));
          }
        };
    List<Channel> channels = new ArrayList<>();
    InheritedSockets.Held held = new InheritedSockets.Held();
    try {
      int port = config.port();
      for (String listen : config.listen()) {
        List<InheritedSockets.Socket> handed = inherited.claimHttps(Addresses.of(listen), port);
        ServerBootstrap b = new ServerBootstrap().group(group);
        if (!handed.isEmpty()) {
          int fd = handed.get(0).fd();
          b.channelFactory(() -> new EpollServerSocketChannel(fd));
        } else {
          b.channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
        }
        b.option(ChannelOption.SO_BACKLOG, 1024)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(init);
        if (!handed.isEmpty()) {
          held.add(handed.get(0).fd(), b::register);
          port = handed.get(0).address().getPort();
          continue;
        }
        Channel ch = b.bind(Addresses.of(listen), port).sync().channel();
        // With port 0 the first listener picks a free port and the others take the same.
        port = ((InetSocketAddress) ch.localAddress()).getPort();
        channels.add(ch);
        log.info(
            "DNS over HTTPS and HTTPDNS on https://{}:{}",
            listen.contains(":") ? "[" + listen + "]" : listen,
            port);
      }
      return new HttpsServer(group, new CopyOnWriteArrayList<>(channels), port, cap, held);
    } catch (Exception e) {
      held.close();
      // Includes a bind's BindException, which Netty rethrows unchecked.
      closeAll(group, channels);
      throw e;
    }
  }

  /** The port every listener is bound to. */
  public int port() {
    return port;
  }

  /** The listening sockets, to hand over to the node taking over; empty without epoll. */
  public List<InheritedSockets.Socket> listeningSockets() {
    if (channels.isEmpty() || !(channels.get(0) instanceof EpollServerSocketChannel)) {
      return List.of();
    }
    return channels.stream()
        .map(c -> InheritedSockets.Socket.of(InheritedSockets.Kind.HTTPS, c))
        .toList();
  }

  /**
   * Stops accepting (the node that took the sockets over accepts now); open connections are served
   * until they close or {@link #close()}.
   */
  public void stopListening() {
    for (Channel c : channels) {
      c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
  }

  /** Starts accepting on handed-over sockets held until this process answers (a takeover). */
  public void startReading() throws InterruptedException {
    held.register(channels);
  }

  /** HTTPS connections open now. */
  public int openConnections() {
    return cap.open.get();
  }

  @Override
  public void close() {
    held.close();
    closeAll(group, channels);
  }

  private static void closeAll(EventLoopGroup group, List<Channel> channels) {
    for (Channel c : channels) {
      c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /**
   * Closes a new connection at once while {@code dns.https.maxConnections} are open, or its source
   * (an IPv4 address, an IPv6 /64) holds {@code dns.https.maxConnectionsPerSource}, before its TLS
   * handshake costs anything, so neither a flood of connections can exhaust file descriptors nor
   * one client take every slot. Admitting a connection takes no lock: one atomic for the total, a
   * concurrent map of counts per source whose entries go when they reach zero.
   */
  @Sharable
  private static final class ConnectionCap extends ChannelInboundHandlerAdapter {
    private final int max;
    private final int perSource;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> bySource = new ConcurrentHashMap<>();
    private final GslbMetrics metrics;
    // At most one log line a minute about connections refused by each cap.
    private final AtomicLong nextFullLog = new AtomicLong(System.nanoTime());
    private final AtomicLong nextSourceLog = new AtomicLong(System.nanoTime());

    ConnectionCap(int max, int perSource, GslbMetrics metrics) {
      this.max = max;
      this.perSource = perSource;
      this.metrics = metrics;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      String source = ClientSource.key(ctx.channel().remoteAddress());
      if (bySource.merge(source, 1, Integer::sum) > perSource) {
        release(source);
        metrics.httpsClosed(HttpsCloseReason.SOURCE_LIMIT);
        if (due(nextSourceLog)) {
          log.warn(
              "{} holds {} HTTPS connections (dns.https.maxConnectionsPerSource): closing its new"
                  + " ones",
              ctx.channel().remoteAddress(),
              perSource);
        }
        refuse(ctx);
        return;
      }
      if (open.incrementAndGet() > max) {
        open.decrementAndGet();
        release(source);
        metrics.httpsClosed(HttpsCloseReason.LISTENER_FULL);
        if (due(nextFullLog)) {
          log.warn(
              "{} HTTPS connections are open (dns.https.maxConnections): closing new ones", max);
        }
        refuse(ctx);
        return;
      }
      ctx.channel()
          .closeFuture()
          .addListener(
              f -> {
                open.decrementAndGet();
                release(source);
              });
      super.channelActive(ctx);
    }

    private void release(String source) {
      bySource.computeIfPresent(source, (k, n) -> n <= 1 ? null : n - 1);
    }

    private void refuse(ChannelHandlerContext ctx) {
      ctx.pipeline().remove(this);
      ctx.close();
    }

    /** Whether a minute has passed since the last log line of {@code nextLog}'s kind. */
    private static boolean due(AtomicLong nextLog) {
      long now = System.nanoTime();
      long next = nextLog.get();
      return now - next >= 0 && nextLog.compareAndSet(next, now + TimeUnit.MINUTES.toNanos(1));
    }
  }

  /** Closes a connection that carried nothing for the configured idle timeout. */
  @Sharable
  private static final class IdleCloser extends ChannelInboundHandlerAdapter {
    private final GslbMetrics metrics;

    IdleCloser(GslbMetrics metrics) {
      this.metrics = metrics;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof IdleStateEvent) {
        metrics.httpsClosed(HttpsCloseReason.IDLE_TIMEOUT);
        ctx.close();
      } else {
        super.userEventTriggered(ctx, evt);
      }
    }
  }

  /** Sets up HTTP/2 or HTTP/1.1 once TLS has negotiated the protocol (HTTP/1.1 without ALPN). */
  private static final class Negotiation extends ApplicationProtocolNegotiationHandler {
    private final HttpsAnswers answers;
    private final RequestDeadline deadline;

    Negotiation(HttpsAnswers answers, RequestDeadline deadline) {
      super(ApplicationProtocolNames.HTTP_1_1);
      this.answers = answers;
      this.deadline = deadline;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
      ChannelPipeline p = ctx.pipeline();
      if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
        p.addLast(
            new Http2Frames(deadline),
            Http2FrameCodecBuilder.forServer()
                .initialSettings(
                    Http2Settings.defaultSettings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS))
                .build(),
            new Http2Handler(answers, deadline));
      } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
        p.addLast(
            new HttpServerCodec(MAX_INITIAL_LINE, 8192, 8192),
            new Aggregator(answers, deadline),
            new Http1Handler(answers));
      } else {
        throw new IllegalStateException("unexpected application protocol " + protocol);
      }
    }
  }

  /**
   * Collects an HTTP/1.1 request whole, up to the largest DNS message; a larger body gets 413
   * (counted like every other answer). A whole request stops the request deadline's clock.
   */
  private static final class Aggregator extends HttpObjectAggregator {
    private final HttpsAnswers answers;
    private final RequestDeadline deadline;

    Aggregator(HttpsAnswers answers, RequestDeadline deadline) {
      super(HttpsAnswers.MAX_MESSAGE);
      this.answers = answers;
      this.deadline = deadline;
    }

    @Override
    protected void finishAggregation(FullHttpMessage aggregated) throws Exception {
      deadline.quiet();
      super.finishAggregation(aggregated);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized)
        throws Exception {
      if (oversized instanceof HttpRequest req) {
        answers.count(HttpsAnswers.path(req.uri()), req.method(), 413);
      }
      super.handleOversizedMessage(ctx, oversized);
    }
  }
}
