package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.transfer.TransferSession;
import io.sluice.dns.transfer.ZoneTransfers;
import java.net.InetAddress;
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

  private final SnapshotStore store;
  private final GslbMetrics metrics;

  TcpTransfers(SnapshotStore store, GslbMetrics metrics) {
    this.store = store;
    this.metrics = metrics;
  }

  /** Starts answering the transfer request {@code query} on {@code ctx}'s connection. */
  void start(ChannelHandlerContext ctx, byte[] query, int len, InetAddress client) {
    TransferSession session = ZoneTransfers.start(store.current(), query, len, client, metrics);
    Stream s = new Stream(ctx, session);
    ctx.channel().config().setAutoRead(false);
    ctx.channel().attr(STREAM).set(s);
    s.run();
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
    }
  }

  /** One connection's transfer under way; only its event loop touches it. */
  private static final class Stream implements Runnable {
    private final ChannelHandlerContext ctx;
    private final TransferSession session;
    private final TcpFramer framer;
    private boolean scheduled;

    Stream(ChannelHandlerContext ctx, TransferSession session) {
      this.ctx = ctx;
      this.session = session;
      this.framer = ctx.pipeline().get(TcpFramer.class);
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
          ch.attr(STREAM).set(null);
          ch.config().setAutoRead(true);
          ctx.read();
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
