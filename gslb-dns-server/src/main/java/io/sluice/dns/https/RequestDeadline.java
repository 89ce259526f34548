package io.sluice.dns.https;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code dns.https.requestTimeout} on one connection: closes it when a request has not arrived
 * whole within the timeout of its first byte. It sits in front of TLS, so a request counts from its
 * first encrypted byte, and only a whole request (HTTP/1.1: aggregated; HTTP/2: every frame whole
 * and every stream ended) stops the clock: bytes trickled in do not extend it, as the idle timeout
 * alone would let them. A connection quiet between requests is left to the idle timeout.
 *
 * <p>One timer a connection, scheduled only when none is pending and re-armed from the oldest
 * unfinished request when it fires, so a busy connection schedules about one timer a timeout.
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(RequestDeadline.class);

  /** No request under way. */
  static final long NONE = Long.MAX_VALUE;

  private static final LongSupplier NO_STREAMS = () -> NONE;

  private final long timeoutNanos;
  private final Runnable onTimeout;
  private ChannelHandlerContext ctx;
  private ScheduledFuture<?> timer;

  /** When the bytes not yet known to form whole requests started arriving; NONE when quiet. */
  private long since = NONE;

  /** HTTP/2: when the oldest stream still waiting for its end started; NONE without one. */
  private LongSupplier streams = NO_STREAMS;

  RequestDeadline(long timeoutNanos, Runnable onTimeout) {
    this.timeoutNanos = timeoutNanos;
    this.onTimeout = onTimeout;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (since == NONE && msg instanceof ByteBuf b && b.isReadable()) {
      since = ctx.executor().ticker().nanoTime();
      if (timer == null) {
        schedule(timeoutNanos);
      }
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    super.channelInactive(ctx);
  }

  /**
   * On the event loop: every byte received so far forms whole requests (or whole control frames, or
   * the TLS handshake), so the clock stops until the next byte.
   */
  void quiet() {
    since = NONE;
  }

  /** When the bytes now arriving started: the start of the request they belong to. */
  long since() {
    return since == NONE ? ctx.executor().ticker().nanoTime() : since;
  }

  /** HTTP/2: {@code oldest} tells when the oldest stream still waiting for its end started. */
  void streams(LongSupplier oldest) {
    this.streams = oldest;
  }

  private void schedule(long delayNanos) {
    timer = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void check() {
    timer = null;
    long oldest = Math.min(since, streams.getAsLong());
    if (oldest == NONE || !ctx.channel().isActive()) {
      return;
    }
    long left = oldest + timeoutNanos - ctx.executor().ticker().nanoTime();
    if (left > 0) {
      schedule(left);
      return;
    }
    log.debug(
        "HTTPS connection from {} closed: no whole request within dns.https.requestTimeout",
        ctx.channel().remoteAddress());
    onTimeout.run();
    ctx.close();
  }
}
