package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sets up one accepted TCP connection: refuses it beyond the connection cap, then frames messages
 * by their two-byte length prefix and closes the connection after the idle timeout.
 */
final class TcpChannelInitializer extends ChannelInitializer<Channel> {
  private final TcpQueryHandler handler;
  private final AtomicInteger open;
  private final int maxConnections;
  private final long idleMillis;

  TcpChannelInitializer(
      TcpQueryHandler handler, AtomicInteger open, int maxConnections, long idleMillis) {
    this.handler = handler;
    this.open = open;
    this.maxConnections = maxConnections;
    this.idleMillis = idleMillis;
  }

  @Override
  protected void initChannel(Channel ch) {
    if (open.incrementAndGet() > maxConnections) {
      open.decrementAndGet();
      ch.close();
      return;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    ch.pipeline()
        .addLast(new IdleStateHandler(0, 0, idleMillis, TimeUnit.MILLISECONDS))
        .addLast(new LengthFieldBasedFrameDecoder(65535, 0, 2, 0, 2))
        .addLast(new LengthFieldPrepender(2))
        .addLast(handler);
  }
}
