package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.LengthFieldPrepender;
import io.sluice.core.spi.GslbMetrics;

/**
 * Sets up one accepted TCP connection, which {@link TcpConnectionTable} has already admitted:
 * frames messages by their two-byte length prefix under the idle and message deadlines, prefixes
 * answers with their length, and answers through the shared handler.
 */
final class TcpChannelInitializer extends ChannelInitializer<Channel> {
  private final TcpQueryHandler handler;
  private final long idleNanos;
  private final long messageNanos;
  private final GslbMetrics metrics;

  TcpChannelInitializer(
      TcpQueryHandler handler, long idleNanos, long messageNanos, GslbMetrics metrics) {
    this.handler = handler;
    this.idleNanos = idleNanos;
    this.messageNanos = messageNanos;
    this.metrics = metrics;
  }

  @Override
  protected void initChannel(Channel ch) {
    ch.pipeline()
        .addLast(new TcpFramer(ch.attr(TcpConnection.KEY).get(), idleNanos, messageNanos, metrics))
        .addLast(new LengthFieldPrepender(2))
        .addLast(handler);
  }
}
