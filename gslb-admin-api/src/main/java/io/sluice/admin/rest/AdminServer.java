package io.sluice.admin.rest;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.admin.auth.FailedAuthLimiter;
import io.sluice.admin.auth.Role;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.config.AdminConfig;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.Problems;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.ConfigCommands;
import io.sluice.core.control.ConfigReloader;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.dnssec.DnssecKeyManager;
import io.sluice.core.health.PoolLoadFeed;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.history.PastStates;
import io.sluice.core.spi.ClusterMembers;
import io.sluice.core.spi.CookieRotation;
import io.sluice.core.spi.CookieSecretExchange;
import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.spi.ProbeView;
import io.sluice.core.spi.ShadowReporter;
import io.sluice.core.spi.StateBackups;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.SnapshotStore;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin REST API server: Netty HTTP/1.1 (optionally TLS) on the configured address, bearer
 * token authentication, JSON in and out. One I/O thread accepts connections under the {@link
 * ConnectionGuard}'s caps and deadline, routes and authenticates; handlers then run on small
 * executors, never on the I/O thread, because control-plane commands persist and audit before they
 * return: one for commands, one for everything else, so reads never delay a command.
 */
public final class AdminServer implements AutoCloseable {
  /** The prefix of every versioned route. */
  public static final String API_PREFIX = "/api/v1";

  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  private static final int READ_THREADS = 2;

  /**
   * Reads waiting for a read thread; one more is answered 503 at once. Small, so that viewers in a
   * loop cannot pile up work (and memory) that competes with commands for the CPU for long.
   */
  static final int QUEUED_READS = 32;

  // Two, so that a long reload never holds back a rollback.
  private static final int COMMAND_THREADS = 2;
  private static final int QUEUED_COMMANDS = 256;

  private final AdminConfig config;
  private final SnapshotStore store;
  private final Router router = new Router();
  private final JsonBodies bodies = new JsonBodies(ConfigLoader.jsonMapper());
  private final AdminHandler handler;
  private volatile boolean ready;
  private volatile ClusterMembers cluster = ClusterMembers.NONE;
  private volatile CookieRotation cookieRotation;
  private volatile ConfigCommands configCommands;
  private final DecisionExplainer explainer;
  private volatile DnssecKeyManager dnssecKeys = DnssecKeyManager.NONE;
  private volatile ProbeView probes;
  private EventLoopGroup loop;
  // The accepted connections, closed with the server.
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ThreadPoolExecutor reads;
  private final ThreadPoolExecutor commands;
  private final ConnectionGuard guard;
  private Channel channel;

  /** A server using the system clock for its failed-authentication windows. */
  public AdminServer(
      AdminConfig config,
      SnapshotStore store,
      ControlPlane control,
      ConfigReloader reloader,
      DecisionExplainer explainer,
      ProbeReport.Sink probeSink,
      PrometheusMetrics metrics) {
    this(config, store, control, reloader, explainer, probeSink, metrics, Ticker.SYSTEM);
  }

  /**
   * A server whose listener follows {@code config} (bound at start); the tokens it accepts are
   * always those of the configuration published in {@code store}, so a reload adds and revokes
   * them.
   */
  public AdminServer(
      AdminConfig config,
      SnapshotStore store,
      ControlPlane control,
      ConfigReloader reloader,
      DecisionExplainer explainer,
      ProbeReport.Sink probeSink,
      PrometheusMetrics metrics,
      Ticker ticker) {
    this.config = config;
    this.store = store;
    this.explainer = explainer;
    new ReadRoutes(store, control, explainer).register(router);
    new CommandRoutes(store, control, bodies).register(router);
    new MaintenanceRoutes(store, control, bodies, ticker).register(router);
    new MemberRoutes(store, control, bodies).register(router);
    new ClusterRoutes(() -> cluster, ticker).register(router);
    new ProbeRoutes(store, () -> probes, ConfigLoader.jsonMapper(), ticker).register(router);
    router.add(
        "POST",
        API_PREFIX + "/dns/cookies/rotate",
        Role.ADMIN,
        req -> {
          bodies.read(req.body(), CommandRoutes.ChangeBody.class);
          return rotateCookies(cookieRotation);
        });
    new KeyRoutes(() -> dnssecKeys, bodies).register(router);
    new SystemRoutes(
            store, reloader, probeSink, metrics, bodies, () -> ready, control::storeProblem)
        .register(router, config.metricsPublic());
    // Commands have their own thread and queue: reads of history, however slow or many, never
    // delay a rollback.
    this.reads = executor(READ_THREADS, QUEUED_READS, "sluice-admin-read");
    this.commands = executor(COMMAND_THREADS, QUEUED_COMMANDS, "sluice-admin-command");
    this.guard = new ConnectionGuard(config.connections());
    if (metrics != null) {
      registerConnectionMeters(metrics, guard);
    }
    this.handler =
        new AdminHandler(
            router,
            // The tokens of the published configuration: a reload adds and revokes them.
            TokenAuthenticator.following(() -> store.current().config().admin().tokens()),
            new FailedAuthLimiter(config.authFailuresPerMinute(), ticker),
            new ScopeGuard(() -> store.current().config()),
            ticker,
            ConfigLoader.jsonMapper(),
            guard,
            reads,
            commands);
  }

  private static void registerConnectionMeters(PrometheusMetrics metrics, ConnectionGuard g) {
    Gauge.builder("sluice_admin_connections", g, x -> x.counts().open())
        .description("Open admin API connections")
        .register(metrics.registry());
    Map<String, ToDoubleFunction<ConnectionGuard>> closed =
        Map.of(
            "evicted", x -> x.counts().evicted(),
            "refused", x -> x.counts().refused(),
            "deadline", x -> x.counts().timedOut());
    closed.forEach(
        (reason, count) ->
            FunctionCounter.builder("sluice_admin_connections_closed", g, count)
                .description(
                    "Admin API connections closed by the listener's limits: evicted to make room,"
                        + " refused, or past the request deadline")
                .tag("reason", reason)
                .register(metrics.registry()));
  }

  private static ThreadPoolExecutor executor(int threads, int queued, String name) {
    return new ThreadPoolExecutor(
        threads,
        threads,
        0,
        TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(queued),
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  /** Every route the server answers, for documentation checks. */
  public List<Route> routes() {
    return router.routes();
  }

  /** Marks the node ready (or not) for {@code /readyz}; it starts not ready. */
  public void ready(boolean isReady) {
    this.ready = isReady;
  }

  /**
   * Adds the configuration history routes ({@code /api/v1/config/versions}, {@code push}, {@code
   * rollback}, ...) answered by {@code commands}; call before {@link #start()}.
   */
  public synchronized AdminServer withConfigCommands(ConfigCommands commands) {
    if (channel != null) {
      throw new IllegalStateException("routes are added before start()");
    }
    new ConfigRoutes(store, commands, bodies, config.maxBodyBytes()).register(router);
    this.configCommands = commands;
    return this;
  }

  /**
   * Adds the shadow chain routes ({@code /api/v1/shadow/{service}}, reported by {@code shadows};
   * setting and promoting need {@link #withConfigCommands}) and {@code GET /api/v1/why} over {@code
   * past}; call before {@link #start()}.
   */
  public synchronized AdminServer withObservability(ShadowReporter shadows, PastStates past) {
    if (channel != null) {
      throw new IllegalStateException("routes are added before start()");
    }
    new ObservabilityRoutes(store, shadows, past, explainer, () -> configCommands, bodies)
        .register(router);
    return this;
  }

  /**
   * Shows {@code members} at {@code GET /api/v1/cluster} (a single node shows that it is not
   * clustered).
   */
  public AdminServer withCluster(ClusterMembers members) {
    this.cluster = members;
    return this;
  }

  /**
   * Lets {@code GET /api/v1/probes} show the probe engine's status; without it the route says that
   * no engine runs.
   */
  public AdminServer withProbes(ProbeView view) {
    this.probes = view;
    return this;
  }

  /**
   * Lets {@code POST /api/v1/dns/cookies/rotate} (admin role) rotate the DNS cookie secret of the
   * whole cluster through {@code rotation}; without it (a single node, whose secret is a file
   * rotated with a reload) the route answers 409.
   */
  public AdminServer withCookieRotation(CookieRotation rotation) {
    this.cookieRotation = rotation;
    return this;
  }

  /**
   * Shows the DNSSEC keys of {@code keys} at {@code /api/v1/keys} and {@code
   * /api/v1/zones/{zone}/keys} and runs their rollover steps; without it no zone is signed.
   */
  public AdminServer withDnssecKeys(DnssecKeyManager keys) {
    this.dnssecKeys = keys;
    return this;
  }

  private static ApiResponse rotateCookies(CookieRotation rotation) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    if (rotation == null) {
      m.put("error", "not_clustered");
      m.put(
          "message",
          "a single node's cookie secret is its dns.cookies.secretFile: rotate it with"
              + " previousSecretFile and a reload (docs/dns.md)");
      return ApiResponse.json(409, m);
    }
    try {
      CookieSecretExchange.Secrets s = rotation.rotate();
      m.put("rotated", true);
      m.put("fingerprint", s.fingerprint());
      m.put("previousAccepted", s.previous() != null);
      return ApiResponse.ok(m);
    } catch (java.io.IOException e) {
      m.put("error", "cluster_unavailable");
      m.put("message", "the secret was not rotated: " + e.getMessage());
      return ApiResponse.json(503, m);
    }
  }

  /**
   * Adds {@code GET /api/v1/state/backup} (admin role): a backup of the node's state directory made
   * by {@code backups} ({@code ?secrets=false} leaves the secrets out); call before {@link
   * #start()}.
   */
  public synchronized AdminServer withStateBackups(StateBackups backups) {
    if (channel != null) {
      throw new IllegalStateException("routes are added before start()");
    }
    router.add(
        "GET",
        API_PREFIX + "/state/backup",
        Role.ADMIN,
        req -> {
          String secrets = req.queryParam("secrets");
          if (secrets != null && !secrets.equals("true") && !secrets.equals("false")) {
            throw ApiException.badRequest("secrets", "must be true or false");
          }
          try {
            return ApiResponse.bytes(backups.backup(!"false".equals(secrets)), "application/zip");
          } catch (java.io.IOException e) {
            throw new ApiException(
                503, "backup_failed", null, "the backup could not be made: " + e.getMessage());
          }
        });
    return this;
  }

  /**
   * Adds the pool load intake ({@code PUT /api/v1/pools/{pool}/load}) fed into {@code feed}; call
   * before {@link #start()}.
   */
  public synchronized AdminServer withLoadFeed(PoolLoadFeed feed) {
    if (channel != null) {
      throw new IllegalStateException("routes are added before start()");
    }
    new LoadRoutes(store, feed, bodies).register(router);
    return this;
  }

  /**
   * Binds the listener; TLS files are resolved against the configuration file's directory. Throws
   * {@link IllegalStateException} naming the file when the certificate or key cannot be used, and
   * releases its threads when the address cannot be bound.
   */
  public synchronized AdminServer start() throws InterruptedException {
    if (channel != null) {
      throw new IllegalStateException("already started");
    }
    SslContext tls = config.tls() == null ? null : sslContext();
    int maxBody = config.maxBodyBytes();
    long idleMillis = config.connections().idleTimeout().toMillis();
    // One I/O thread both accepts and serves: a connection is admitted or closed by the guard
    // as it is accepted, so a flood never piles up accepted sockets (and descriptors) waiting for
    // another thread to look at them.
    loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ServerBootstrap b =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    connections.add(ch);
                    ChannelPipeline p = ch.pipeline();
                    p.addLast(guard);
                    if (tls != null) {
                      p.addLast(tls.newHandler(ch.alloc()));
                    }
                    // Idle only counts between requests: the handler ignores it while one is
                    // being executed, so a 40 s reload still gets its reply.
                    p.addLast(new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS));
                    p.addLast(new HttpServerCodec());
                    p.addLast(new LimitedAggregator(maxBody));
                    p.addLast(handler);
                  }
                });
    try {
      channel = b.bind(new InetSocketAddress(config.listen(), config.port())).sync().channel();
    } catch (Exception e) {
      // Netty rethrows a failed bind's BindException unchecked; release the threads either way.
      close();
      throw e;
    }
    log.info(
        "admin API listening on {}://{}:{} (at most {} connections, {} per source address,"
            + " {} ms per request)",
        tls == null ? "http" : "https",
        config.listen(),
        port(),
        config.connections().max(),
        config.connections().perSource(),
        config.connections().requestDeadline().toMillis());
    FileDescriptors.check(
        config.connections().max(), store.current().config().dns().maxTcpConnections());
    return this;
  }

  private SslContext sslContext() {
    File cert = store.current().config().resolve(config.tls().certFile()).toFile();
    File key = store.current().config().resolve(config.tls().keyFile()).toFile();
    try {
      return SslContextBuilder.forServer(cert, key).build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "admin.tls: cannot use certFile " + cert + " with keyFile " + key + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * Adds a problem at {@code admin.tls} when the configured certificate or key cannot be read, or
   * they cannot be used together, so that {@code sluice check} and the start find it before any
   * socket is bound.
   */
  public static void checkTls(SluiceConfig config, Problems problems) {
    AdminConfig admin = config.admin();
    if (!admin.enabled() || admin.tls() == null) {
      return;
    }
    if (admin.tls().certFile() == null || admin.tls().keyFile() == null) {
      return; // reported by the configuration's own validation
    }
    File cert = config.resolve(admin.tls().certFile()).toFile();
    File key = config.resolve(admin.tls().keyFile()).toFile();
    boolean readable = readable(problems, "admin.tls.certFile", admin.tls().certFile(), cert);
    readable &= readable(problems, "admin.tls.keyFile", admin.tls().keyFile(), key);
    if (!readable) {
      return;
    }
    try {
      SslContextBuilder.forServer(cert, key).build();
    } catch (SSLException | IllegalArgumentException e) {
      problems.add(
          "admin.tls",
          "cannot use certFile " + cert + " with keyFile " + key + ": " + e.getMessage());
    }
  }

  private static boolean readable(Problems problems, String path, String given, File file) {
    if (file.canRead() && file.isFile()) {
      return true;
    }
    problems.add(path, "cannot read '" + given + "' (resolved to " + file + ")");
    return false;
  }

  /** Connections evicted, refused and timed out so far, and those open now. */
  public ConnectionCounts connectionCounts() {
    return guard.counts();
  }

  /** The bound port (useful when configured as 0). */
  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public synchronized void close() {
    if (channel != null) {
      channel.close().syncUninterruptibly();
      channel = null;
    }
    // Open keep-alive connections too: stopping the loop alone leaves them open and unread, and a
    // client's next request on one would hang (a node handing over to a new process lives on).
    connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    if (loop != null) {
      loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
    reads.shutdown();
    commands.shutdown();
  }

  /** Answers oversized bodies with a JSON 413 instead of Netty's empty one. */
  private static final class LimitedAggregator extends HttpObjectAggregator {
    private final int max;

    LimitedAggregator(int max) {
      super(max);
      this.max = max;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      byte[] body =
          ("{\"error\":\"payload_too_large\",\"field\":null,\"message\":\"the body must be at most "
                  + max
                  + " bytes\"}")
              .getBytes(StandardCharsets.UTF_8);
      FullHttpResponse r =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
              ctx.alloc().buffer(body.length).writeBytes(body));
      r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
      HttpUtil.setContentLength(r, body.length);
      r.headers().set(HttpHeaderNames.CONNECTION, "close");
      ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
  }
}
