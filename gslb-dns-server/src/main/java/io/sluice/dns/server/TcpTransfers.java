package io.sluice.dns.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.util.AttributeKey;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.transfer.TransferSession;
import io.sluice.dns.transfer.ZoneTransfers;
import java.net.InetAddress;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams zone transfers on TCP connections. A transfer's messages are made a few at a time on the
 * connection's event loop, which then turns to its other connections before making more, and only
 * while the channel is writable: a slow secondary holds back its own transfer (the socket buffer
 * plus Netty's high-water mark), never the loop or the server's memory. The connection reads no
 * further query until its transfer is sent.
 */
final class TcpTransfers {
  private static final Logger log = LoggerFactory.getLogger(TcpTransfers.class);
  private static final AttributeKey<Stream> STREAM = AttributeKey.valueOf("sluice.transfer");

  /** Messages (about 32 KiB each) made per turn on the loop before yielding to other channels. */
  static final int MESSAGES_PER_TURN = 4;

  /** Queries kept while a transfer is under way; more is a client not waiting for answers. */
  static final int MAX_DEFERRED = 64;

  private final SnapshotStore store;
  private final GslbMetrics metrics;

  /** Whether a zone transfer is being sent on {@code ch} (its event loop only). */
  static boolean inProgress(Channel ch) {
    return ch.attr(STREAM).get() != null;
  }

  TcpTransfers(SnapshotStore store, GslbMetrics metrics) {
    this.store = store;
    this.metrics = metrics;
  }

  /**
   * Starts answering the transfer request {@code query} on {@code ctx}'s connection; queries that
   * arrive meanwhile go back to {@code handler} once it is sent.
   */
  void start(
      ChannelHandlerContext ctx,
      byte[] query,
      int len,
      InetAddress client,
      ChannelInboundHandler handler) {
    TransferSession session = ZoneTransfers.start(store.current(), query, len, client, metrics);
    Stream s = new Stream(ctx, session, handler);
    ctx.channel().config().setAutoRead(false);
    ctx.channel().attr(STREAM).set(s);
    s.run();
  }

  /**
   * Keeps {@code frame}, a query read while {@code ctx}'s transfer is under way (it came in the
   * same read as the transfer request), to answer after the transfer, in order; false when no
   * transfer is under way. A client that piles up more than {@link #MAX_DEFERRED} is disconnected.
   */
  boolean deferred(ChannelHandlerContext ctx, ByteBuf frame) {
    Stream s = ctx.channel().attr(STREAM).get();
    if (s == null) {
      return false;
    }
    if (s.deferred.size() >= MAX_DEFERRED) {
      frame.release();
      ctx.close();
      return true;
    }
    s.deferred.add(frame);
    return true;
  }

  /**
   * Resumes {@code ctx}'s transfer when its channel became writable; false when the connection has
   * no transfer under way.
   */
  boolean writabilityChanged(ChannelHandlerContext ctx) {
    Stream s = ctx.channel().attr(STREAM).get();
    if (s == null) {
      return false;
    }
    if (ctx.channel().isWritable() && !s.scheduled) {
      s.run();
    }
    return true;
  }

  /** Counts the transfer of a connection that closed before it ended. */
  void closed(ChannelHandlerContext ctx) {
    Stream s = ctx.channel().attr(STREAM).getAndSet(null);
    if (s != null) {
      s.session.aborted();
      s.release();
    }
  }

  /** One connection's transfer under way; only its event loop touches it. */
  private static final class Stream implements Runnable {
    private final ChannelHandlerContext ctx;
    private final TransferSession session;
    private final TcpFramer framer;
    private final ChannelInboundHandler handler;
    private final ArrayDeque<ByteBuf> deferred = new ArrayDeque<>();
    private boolean scheduled;

    Stream(ChannelHandlerContext ctx, TransferSession session, ChannelInboundHandler handler) {
      this.ctx = ctx;
      this.session = session;
      this.handler = handler;
      this.framer = ctx.pipeline().get(TcpFramer.class);
    }

    /** The transfer is sent: answers the queries kept meanwhile, then reads again. */
    private void done() {
      Channel ch = ctx.channel();
      ch.attr(STREAM).set(null);
      ByteBuf next;
      while ((next = deferred.poll()) != null) {
        try {
          handler.channelRead(ctx, next);
        } catch (Exception e) {
          ctx.fireExceptionCaught(e);
        }
        Stream started = ch.attr(STREAM).get();
        if (started != null) {
          started.deferred.addAll(deferred); // a kept query was another transfer: it goes first
          deferred.clear();
          return;
        }
      }
      ctx.flush();
      ch.config().setAutoRead(true);
      ctx.read();
    }

    private void release() {
      ByteBuf b;
      while ((b = deferred.poll()) != null) {
        b.release();
      }
    }

    @Override
    public void run() {
      scheduled = false;
      Channel ch = ctx.channel();
      for (int i = 0; i < MESSAGES_PER_TURN; i++) {
        if (!ch.isActive()) {
          return; // closed() counts it
        }
        if (!ch.isWritable()) {
          ctx.flush();
          return; // writabilityChanged() resumes it
        }
        byte[] m;
        try {
          m = session.next();
        } catch (RuntimeException e) {
          log.warn("zone transfer of {} failed; closing the connection", session.zone(), e);
          ctx.close();
          return;
        }
        if (m == null) {
          ctx.flush();
          done();
          return;
        }
        ctx.write(ctx.alloc().buffer(m.length).writeBytes(m));
        if (framer != null) {
          framer.busy();
        }
      }
      ctx.flush();
      scheduled = true;
      ctx.executor().execute(this);
    }
  }
}
