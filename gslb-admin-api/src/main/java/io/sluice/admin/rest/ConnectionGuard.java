package io.sluice.admin.rest;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.core.config.AdminConfig.ConnectionLimits;
import io.sluice.core.net.ClientSource;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the admin listener usable under a connection flood. It caps connections in all and per
 * source address, closes a connection that has not delivered a whole request (headers and body)
 * within the request deadline counted from its first byte (a trickle of bytes does not extend it),
 * and when a cap is reached it makes room by closing the oldest connection that is still sending an
 * unauthenticated request, so an operator with a valid token always gets in. Connections that have
 * presented a valid token are never evicted; a new connection is refused only when every slot it
 * could take belongs to one.
 */
@ChannelHandler.Sharable
final class ConnectionGuard extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final AttributeKey<Conn> CONN = AttributeKey.valueOf("sluice.admin.conn");

  private final int max;
  private final int perSource;
  private final long deadlineNanos;
  // Guarded by this: admission happens on the I/O thread, authentication on handler threads.
  private final Map<String, Integer> bySource = new HashMap<>();
  // Connections still sending an unauthenticated request, oldest first: the eviction candidates.
  private final LinkedHashSet<Conn> evictable = new LinkedHashSet<>();
  private int open;
  private final AtomicLong evicted = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong timedOut = new AtomicLong();

  /** One admitted connection. */
  private static final class Conn {
    final Channel channel;
    final String source;
    boolean trusted;
    boolean gone;
    ScheduledFuture<?> deadline;

    Conn(Channel channel, String source) {
      this.channel = channel;
      this.source = source;
    }
  }

  ConnectionGuard(ConnectionLimits limits) {
    this.max = limits.max();
    this.perSource = limits.perSource();
    this.deadlineNanos = limits.requestDeadline().toNanos();
  }

  ConnectionCounts counts() {
    synchronized (this) {
      return new ConnectionCounts(evicted.get(), refused.get(), timedOut.get(), open);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    Channel ch = ctx.channel();
    Conn conn = new Conn(ch, source(ch));
    Conn victimAll = null;
    Conn victimSource = null;
    boolean admitted;
    synchronized (this) {
      if (bySource.getOrDefault(conn.source, 0) >= perSource) {
        victimSource = oldestEvictable(conn.source);
        if (victimSource != null) {
          forget(victimSource);
        }
      }
      if (open >= max) {
        victimAll = oldestEvictable(null);
        if (victimAll != null) {
          forget(victimAll);
        }
      }
      admitted = open < max && bySource.getOrDefault(conn.source, 0) < perSource;
      if (admitted) {
        open++;
        bySource.merge(conn.source, 1, Integer::sum);
        evictable.add(conn);
      }
    }
    for (Conn v : new Conn[] {victimSource, victimAll}) {
      if (v != null) {
        evicted.incrementAndGet();
        log.debug("admin connection from {} evicted to make room", v.source);
        v.channel.close();
      }
    }
    if (!admitted) {
      refused.incrementAndGet();
      log.debug(
          "admin connection from {} refused: every slot is in authenticated use", conn.source);
      ch.close();
      return;
    }
    ch.attr(CONN).set(conn);
    arm(conn);
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    Conn conn = ctx.channel().attr(CONN).get();
    if (conn != null && conn.deadline == null) {
      arm(conn); // the first byte of the next request starts its deadline
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    Conn conn = ctx.channel().attr(CONN).get();
    if (conn != null) {
      disarm(conn);
      synchronized (this) {
        forget(conn);
      }
    }
    super.channelInactive(ctx);
  }

  /** On the I/O thread: a whole request arrived, so its deadline no longer runs. */
  void requestReceived(Channel ch) {
    Conn conn = ch.attr(CONN).get();
    if (conn != null) {
      disarm(conn);
      synchronized (this) {
        evictable.remove(conn);
      }
    }
  }

  /**
   * The request just answered presented a valid token ({@code authenticated}) or not: a trusted
   * connection is never evicted, an untrusted one goes back to the end of the eviction queue.
   */
  void requestAnswered(Channel ch, boolean authenticated) {
    Conn conn = ch.attr(CONN).get();
    if (conn == null) {
      return;
    }
    synchronized (this) {
      if (conn.gone) {
        return;
      }
      conn.trusted |= authenticated;
      if (!conn.trusted) {
        evictable.add(conn);
      }
    }
  }

  private Conn oldestEvictable(String source) {
    for (Iterator<Conn> it = evictable.iterator(); it.hasNext(); ) {
      Conn c = it.next();
      if (source == null || c.source.equals(source)) {
        return c;
      }
    }
    return null;
  }

  /** Under the lock: releases the slot of {@code conn}, once. */
  private void forget(Conn conn) {
    if (conn.gone) {
      return;
    }
    conn.gone = true;
    evictable.remove(conn);
    open--;
    bySource.computeIfPresent(conn.source, (k, n) -> n <= 1 ? null : n - 1);
  }

  private void arm(Conn conn) {
    conn.deadline =
        conn.channel
            .eventLoop()
            .schedule(
                () -> {
                  timedOut.incrementAndGet();
                  log.debug(
                      "admin connection from {} closed: no whole request within the deadline",
                      conn.source);
                  conn.channel.close();
                },
                deadlineNanos,
                TimeUnit.NANOSECONDS);
  }

  private static void disarm(Conn conn) {
    if (conn.deadline != null) {
      conn.deadline.cancel(false);
      conn.deadline = null;
    }
  }

  private static String source(Channel ch) {
    return source(ch.remoteAddress());
  }

  /** What {@code perSource} counts a client by (see {@link ClientSource#key}). */
  static String source(SocketAddress remote) {
    return ClientSource.key(remote);
  }
}
