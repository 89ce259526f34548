package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One accepted TCP connection as the connection table sees it. Its event loop records when the
 * connection last delivered a complete message; the table's accept thread reads that to pick which
 * connection to close when the table is full. Everything else is owned by the accept thread.
 */
final class TcpConnection {
  /** Where the child pipeline finds its table entry. */
  static final AttributeKey<TcpConnection> KEY = AttributeKey.valueOf("sluice.tcp.connection");

  private static final VarHandle WAITING_SINCE;

  static {
    try {
      WAITING_SINCE =
          MethodHandles.lookup().findVarHandle(TcpConnection.class, "waitingSince", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final Channel channel;
  final String source;

  /** Accept time, or the time the latest complete message was read: the start of the wait. */
  @SuppressWarnings("unused") // accessed through WAITING_SINCE
  private volatile long waitingSince;

  /** Position in the table's list, or -1 once removed; accept thread only. */
  int slot = -1;

  TcpConnection(Channel channel, String source, long acceptedNanos) {
    this.channel = channel;
    this.source = source;
    this.waitingSince = acceptedNanos;
  }

  /**
   * A complete message was read at {@code nanos}. A release store: the reader on the accept thread
   * only needs an eventually fresh value, and the query path pays no fence.
   */
  void progressed(long nanos) {
    WAITING_SINCE.setRelease(this, nanos);
  }

  long waitingSince() {
    return (long) WAITING_SINCE.getAcquire(this);
  }
}
