package io.sluice.dns.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Ticker;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TcpCloseReason;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Cuts a TCP connection's bytes into DNS messages by their two-byte length prefix and enforces its
 * two deadlines (RFC 7766 §6.2.3): the next message must start within the idle timeout of the
 * previous one (or of the accept), and once its first byte has arrived it must be complete within
 * the message timeout. Neither is extended by further bytes, so a client trickling one byte at a
 * time is closed on schedule. One timer per connection is re-armed only when a partial message
 * begins or when it fires early; a query read in one piece costs a clock read.
 */
final class TcpFramer extends ByteToMessageDecoder {
  private static final long NONE = Long.MIN_VALUE;

  private final TcpConnection connection;
  private final long idleNanos;
  private final long messageNanos;
  private final GslbMetrics metrics;

  private Ticker ticker;
  private long waitingSince;
  private long messageStart = NONE;
  private Future<?> timer;
  private long timerAt;

  TcpFramer(TcpConnection connection, long idleNanos, long messageNanos, GslbMetrics metrics) {
    this.connection = connection;
    this.idleNanos = idleNanos;
    this.messageNanos = messageNanos;
    this.metrics = metrics;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    super.handlerAdded(ctx);
    ticker = ctx.executor().ticker();
    waitingSince = ticker.nanoTime();
    arm(ctx, waitingSince + idleNanos, waitingSince);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    boolean complete = false;
    while (in.readableBytes() >= 2) {
      int len = in.getUnsignedShort(in.readerIndex());
      if (in.readableBytes() < 2 + len) {
        break;
      }
      in.skipBytes(2);
      out.add(in.readRetainedSlice(len));
      complete = true;
    }
    long now = ticker.nanoTime();
    if (complete) {
      waitingSince = now;
      messageStart = NONE;
      if (connection != null) {
        connection.progressed(now);
      }
    }
    if (in.isReadable() && messageStart == NONE) {
      messageStart = now;
      arm(ctx, now + messageNanos, now);
    }
  }

  /** Makes sure the timer fires no later than {@code deadline}. */
  private void arm(ChannelHandlerContext ctx, long deadline, long now) {
    if (timer != null) {
      if (timerAt - deadline <= 0) {
        return; // it fires first and re-arms for the real deadline then
      }
      timer.cancel(false);
    }
    timerAt = deadline;
    timer = ctx.executor().schedule(() -> expire(ctx), deadline - now, TimeUnit.NANOSECONDS);
  }

  private void expire(ChannelHandlerContext ctx) {
    timer = null;
    if (!ctx.channel().isOpen()) {
      return;
    }
    boolean reading = messageStart != NONE;
    long deadline = reading ? messageStart + messageNanos : waitingSince + idleNanos;
    long now = ticker.nanoTime();
    if (now - deadline >= 0) {
      metrics.dnsTcpClosed(reading ? TcpCloseReason.MESSAGE_TIMEOUT : TcpCloseReason.IDLE_TIMEOUT);
      ctx.close();
    } else {
      arm(ctx, deadline, now);
    }
  }

  /**
   * The connection is busy sending a zone transfer: the idle deadline counts from now, as it does
   * from a complete query, so a long transfer is not cut for idleness.
   */
  void busy() {
    long now = ticker.nanoTime();
    waitingSince = now;
    if (connection != null) {
      connection.progressed(now);
    }
  }

  /** Whether no part of a message is waiting to be completed (event loop only). */
  boolean betweenMessages() {
    return messageStart == NONE && actualReadableBytes() == 0;
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
