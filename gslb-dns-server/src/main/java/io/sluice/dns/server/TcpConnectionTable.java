package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.core.net.ClientSource;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TcpCloseReason;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The table of open TCP DNS connections (RFC 7766 §6.2.2), kept on the single accept thread that
 * every TCP listener shares, so it needs no lock. A new connection is never refused: when its
 * source (an IPv4 address, or an IPv6 /64) already holds its share, or the whole table is full, the
 * connection that has waited longest without delivering a complete message is closed instead. That
 * is the oldest idle connection or the slowest sender, never an active client, so slow clients
 * cannot hold the table against real queries.
 */
@Sharable
final class TcpConnectionTable extends ChannelInboundHandlerAdapter {
  private final int maxConnections;
  private final int maxPerSource;
  private final AtomicInteger open;
  private final GslbMetrics metrics;
  private final AtomicLong evicted = new AtomicLong();

  // Accept thread only.
  private final List<TcpConnection> all = new ArrayList<>();
  private final Map<String, List<TcpConnection>> bySource = new HashMap<>();

  TcpConnectionTable(
      int maxConnections, int maxPerSource, AtomicInteger open, GslbMetrics metrics) {
    this.maxConnections = maxConnections;
    this.maxPerSource = maxPerSource;
    this.open = open;
    this.metrics = metrics;
  }

  /** The open connections' channels (accept thread only). */
  List<Channel> channels() {
    List<Channel> out = new ArrayList<>(all.size());
    for (TcpConnection c : all) {
      out.add(c.channel);
    }
    return out;
  }

  /** Connections closed to make room for new ones since start. */
  long evicted() {
    return evicted.get();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof Channel child)) {
      ctx.fireChannelRead(msg);
      return;
    }
    EventExecutor acceptor = ctx.executor();
    TcpConnection c =
        new TcpConnection(child, source(child.remoteAddress()), acceptor.ticker().nanoTime());
    List<TcpConnection> same = bySource.computeIfAbsent(c.source, k -> new ArrayList<>());
    if (same.size() >= maxPerSource) {
      evict(longestWaiting(same), TcpCloseReason.SOURCE_LIMIT);
    } else if (all.size() >= maxConnections) {
      evict(longestWaiting(all), TcpCloseReason.TABLE_FULL);
    }
    add(c, same);
    child.attr(TcpConnection.KEY).set(c);
    child
        .closeFuture()
        .addListener(
            f -> {
              try {
                acceptor.execute(() -> remove(c));
              } catch (RejectedExecutionException stopping) {
                // The listeners are shutting down; the table goes with them.
              }
            });
    ctx.fireChannelRead(child);
  }

  private static TcpConnection longestWaiting(List<TcpConnection> candidates) {
    TcpConnection worst = candidates.get(0);
    long oldest = worst.waitingSince();
    for (int i = 1; i < candidates.size(); i++) {
      TcpConnection c = candidates.get(i);
      long since = c.waitingSince();
      if (since - oldest < 0) {
        worst = c;
        oldest = since;
      }
    }
    return worst;
  }

  private void evict(TcpConnection victim, TcpCloseReason reason) {
    remove(victim);
    evicted.incrementAndGet();
    metrics.dnsTcpClosed(reason);
    victim.channel.close();
  }

  private void add(TcpConnection c, List<TcpConnection> same) {
    c.slot = all.size();
    all.add(c);
    same.add(c);
    metrics.dnsTcpOpen(open.incrementAndGet());
  }

  /** Drops {@code c} from the table; a second call (evicted, then closed) does nothing. */
  private void remove(TcpConnection c) {
    if (c.slot < 0) {
      return;
    }
    TcpConnection last = all.remove(all.size() - 1);
    if (last != c) {
      all.set(c.slot, last);
      last.slot = c.slot;
    }
    c.slot = -1;
    List<TcpConnection> same = bySource.get(c.source);
    same.remove(c);
    if (same.isEmpty()) {
      bySource.remove(c.source);
    }
    metrics.dnsTcpOpen(open.decrementAndGet());
  }

  /** The key a connection's source is limited by (see {@link ClientSource#key}). */
  static String source(SocketAddress remote) {
    return ClientSource.key(remote);
  }
}
