package io.sluice.probe.check;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** Passes when a TCP connection to the target is accepted within the timeout. */
final class TcpConnectCheck implements Check {
  /** The connection is closed at once; a reset racing that close is not worth a warning. */
  @ChannelHandler.Sharable
  private static final class Quiet extends ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  private static final Quiet QUIET = new Quiet();

  private final EventLoopGroup group;
  private final Executor resolver;
  private final CheckTarget target;
  private final int timeoutMillis;

  TcpConnectCheck(EventLoopGroup group, Executor resolver, CheckTarget target, Duration timeout) {
    this.group = group;
    this.resolver = resolver;
    this.target = target;
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
  }

  @Override
  public CompletableFuture<CheckResult> run() {
    long start = System.nanoTime();
    CompletableFuture<CheckResult> out = new CompletableFuture<>();
    target
        .resolve(resolver)
        .whenComplete(
            (addr, err) -> {
              if (err != null) {
                out.complete(CheckResult.fail(System.nanoTime() - start, "resolve", message(err)));
              } else {
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
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeoutMillis)
            .option(ChannelOption.SO_LINGER, 0)
            .handler(QUIET)
            .connect(addr);
    f.addListener(
        (ChannelFuture cf) -> {
          long rtt = System.nanoTime() - start;
          if (cf.isSuccess() && selfConnected(cf.channel())) {
            cf.channel().close();
            out.complete(
                CheckResult.fail(rtt, "refused", "connect " + describe() + ": nothing listens"));
          } else if (cf.isSuccess()) {
            cf.channel().close();
            out.complete(CheckResult.pass(rtt));
          } else {
            Throwable t = cf.cause();
            String reason = reasonOf(t);
            out.complete(
                CheckResult.fail(rtt, reason, "connect " + describe() + ": " + message(t)));
          }
        });
  }

  /**
   * True when a loopback connect to a closed port picked that same port as its source and connected
   * to itself (TCP simultaneous open): nothing is listening.
   */
  static boolean selfConnected(Channel ch) {
    return ch.localAddress() != null && ch.localAddress().equals(ch.remoteAddress());
  }

  static String reasonOf(Throwable t) {
    if (t instanceof ConnectTimeoutException) {
      return "timeout";
    }
    return t instanceof ConnectException ? "refused" : "io";
  }

  static String message(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
  }

  @Override
  public String describe() {
    return "tcp " + target.authority();
  }
}
