package io.sluice.probe.check;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.sluice.core.config.Addresses;
import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.CheckType;
import io.sluice.core.config.ProbeConfig;
import io.sluice.core.spi.Ticker;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Builds checks that share one small Netty event loop group (no thread per target) and one resolver
 * thread for host names. Closing it stops both.
 */
public final class CheckFactory implements CheckSource, AutoCloseable {
  /** Timeout of canary checks. */
  public static final Duration CANARY_TIMEOUT = Duration.ofSeconds(2);

  private final EventLoopGroup group;
  private final ExecutorService resolver;
  private final SslContext verifying;
  private final SslContext insecure;

  /** A factory running checks on {@code ioThreads} event loop threads. */
  public CheckFactory(int ioThreads) {
    this.group = new MultiThreadIoEventLoopGroup(ioThreads, NioIoHandler.newFactory());
    this.resolver =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-probe-resolver");
              t.setDaemon(true);
              return t;
            });
    try {
      this.verifying = SslContextBuilder.forClient().build();
      this.insecure =
          SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build();
    } catch (SSLException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      resolver.shutdownNow();
      throw new IllegalStateException("TLS is not available: " + e.getMessage(), e);
    }
  }

  /**
   * A check of {@code c} against {@code endpointAddress} (unless the check names its own address),
   * with {@code layerTimeout} unless the check sets one.
   */
  @Override
  public Check create(CheckConfig c, String endpointAddress, Duration layerTimeout) {
    String host = c.address() != null ? c.address() : endpointAddress;
    if (host == null) {
      throw new IllegalArgumentException("a check of a CNAME endpoint needs an explicit address");
    }
    CheckTarget target = new CheckTarget(host, c.effectivePort());
    Duration timeout = c.timeoutOr(layerTimeout);
    if (!c.isHttp()) {
      return new TcpConnectCheck(group, resolver, target, timeout);
    }
    SslContext ssl = c.type() == CheckType.HTTPS ? (c.tlsInsecure() ? insecure : verifying) : null;
    return new HttpCheck(group, resolver, target, c, ssl, timeout);
  }

  /**
   * {@code check} made into runs of up to {@code attempts} tries (see {@link RetryingCheck}), or
   * {@code check} itself for one attempt; {@code clock} measures how long a run has taken (the
   * engine's clock, so that simulated timeouts are measured on simulated time).
   */
  public static Check withAttempts(Check check, int attempts, Duration timeout, Ticker clock) {
    return attempts <= 1 ? check : new RetryingCheck(check, attempts, timeout.toNanos(), clock);
  }

  /** A check of one canary target as written in {@code probes.canaries}. */
  @Override
  public Check canary(String spec) {
    String why = ProbeConfig.canaryProblem(spec);
    if (why != null) {
      throw new IllegalArgumentException("canary: " + why);
    }
    URI u = URI.create(spec.contains("://") ? spec : "tcp://" + spec);
    String host = u.getHost();
    if (host.startsWith("[")) {
      host = host.substring(1, host.length() - 1);
    }
    if ("tcp".equals(u.getScheme())) {
      return new TcpConnectCheck(
          group, resolver, new CheckTarget(host, u.getPort()), CANARY_TIMEOUT);
    }
    CheckType type = "https".equals(u.getScheme()) ? CheckType.HTTPS : CheckType.HTTP;
    int port = u.getPort() > 0 ? u.getPort() : type.defaultPort();
    String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
    if (u.getRawQuery() != null) {
      path = path + "?" + u.getRawQuery();
    }
    CheckConfig c =
        CheckConfig.request(
            type,
            host,
            port,
            path,
            Addresses.isLiteral(host) ? null : host,
            List.of(200, 204),
            CANARY_TIMEOUT);
    return new HttpCheck(
        group,
        resolver,
        new CheckTarget(host, port),
        c,
        type == CheckType.HTTPS ? verifying : null,
        CANARY_TIMEOUT);
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    resolver.shutdownNow();
  }
}
