package io.sluice.dns.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.UnixChannel;
import io.netty.util.ReferenceCountUtil;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers UDP queries on the event loop: copies each datagram into the loop's scratch buffer, asks
 * the {@link Responder}, writes the reply, and flushes once per read batch; a reply the send queue
 * has no room for is dropped and counted ({@link UdpQueues}). Errors are logged and the socket
 * stays open. One per socket: it keeps that socket's reply buffer.
 *
 * <p>With a native loop ({@link NativeUdpLoop}) the channel is not read by Netty at all (auto-read
 * off): this handler starts the loop on the channel's socket once the channel is active and stops
 * it before the channel closes the socket.
 */
final class UdpQueryHandler extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(UdpQueryHandler.class);

  /** Replies are cut from direct buffers of this size, one allocation per few hundred replies. */
  private static final int REPLY_BUFFER_BYTES = 64 * 1024;

  private final Responder responder;
  private final UdpQueues queues;

  /**
   * The direct buffer replies are written into, one after the other; each reply is a slice of it,
   * which holds its memory until the reply is sent. Touched only by the socket's event loop.
   */
  private ByteBuf replies;

  /** Threads for the native loop; null: Netty reads the socket. */
  private final ThreadFactory nativeThreads;

  /** Set and cleared on the channel's event loop, read by a hand-over's thread too. */
  private volatile NativeUdpLoop loop;

  private UdpQueryHandler(Responder responder, UdpQueues queues, ThreadFactory nativeThreads) {
    this.responder = responder;
    this.queues = queues;
    this.nativeThreads = nativeThreads;
  }

  /** A handler that answers what Netty reads from the socket. */
  static UdpQueryHandler netty(Responder responder, UdpQueues queues) {
    return new UdpQueryHandler(responder, queues, null);
  }

  /**
   * A handler that runs a {@link NativeUdpLoop} on a thread from {@code nativeThreads}; with null,
   * {@link #netty}.
   */
  static UdpQueryHandler of(Responder responder, UdpQueues queues, ThreadFactory nativeThreads) {
    return new UdpQueryHandler(responder, queues, nativeThreads);
  }

  /** Whether a native loop, not Netty, reads this handler's socket. */
  boolean readsNatively() {
    return nativeThreads != null;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (readsNatively()) {
      // Before the channel is active, so Netty never asks epoll to read the socket.
      ctx.channel().config().setAutoRead(false);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // Netty fires this just after the bind completes; a close may have come in between (a retried
    // bind), and the descriptor number of a closed channel may already be another file's.
    if (readsNatively()
        && loop == null
        && ctx.channel().isOpen()
        && ctx.channel() instanceof UnixChannel unix) {
      loop =
          NativeUdpLoop.start(
              unix.fd().intValue(),
              responder,
              queues,
              String.valueOf(ctx.channel().localAddress()),
              nativeThreads);
      // Registered with Netty's epoll, the socket keeps an epoll entry on its wait queue even
      // with no event asked for: the kernel then walks it, under two IRQ-saving locks, for every
      // datagram sent (the sent buffer's release wakes writers) and every one that arrives.
      // Deregistered, the socket is the loop's alone; the channel still owns and closes it.
      ctx.channel().deregister();
    }
    ctx.fireChannelActive();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    stopLoop();
    ctx.close(promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    stopLoop();
    ctx.fireChannelInactive();
  }

  private void stopLoop() {
    NativeUdpLoop l = loop;
    if (l != null) {
      l.stop();
      loop = null;
    }
  }

  /** Readies the socket for another process's reader (a hand-over); see NativeUdpLoop#share. */
  void share() {
    NativeUdpLoop l = loop;
    if (l != null) {
      l.share();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof DatagramPacket packet)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    try {
      ByteBuf content = packet.content();
      int len = content.readableBytes();
      byte[] in = Scratch.get(len);
      content.getBytes(content.readerIndex(), in, 0, len);
      byte[] out = responder.respond(in, len, packet.sender().getAddress(), Transport.UDP);
      if (out != null && !ctx.channel().isWritable()) {
        // The kernel refused earlier replies and they wait past the high-water mark: queueing
        // more would grow memory without bound, and a late answer is worth no more than none.
        queues.sendDropped();
      } else if (out != null) {
        // A direct buffer goes to the socket as is; a heap buffer would be copied into one on the
        // write path anyway. No promise per reply: nobody waits for a datagram's write, and the
        // channel's own void promise neither allocates nor reports a failed send (a reply lost
        // like any datagram).
        ctx.write(
            new DatagramPacket(reply(ctx, out), packet.sender()),
            ctx.channel().unsafe().voidPromise());
      }
    } catch (RuntimeException e) {
      log.warn("failed to answer a UDP query from {}", packet.sender(), e);
    } finally {
      packet.release();
    }
  }

  /**
   * {@code out} copied into the reply buffer, as a slice of it: a slice costs far less than a
   * buffer of its own from the allocator (about 20 ns against 45 ns per reply, measured).
   */
  private ByteBuf reply(ChannelHandlerContext ctx, byte[] out) {
    ByteBuf b = replies;
    if (b == null || b.writableBytes() < out.length) {
      if (b != null) {
        b.release();
      }
      b = ctx.alloc().directBuffer(Math.max(REPLY_BUFFER_BYTES, out.length));
      replies = b;
    }
    int at = b.writerIndex();
    b.writeBytes(out);
    return b.retainedSlice(at, out.length);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stopLoop();
    if (replies != null) {
      replies.release();
      replies = null;
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.warn("UDP socket error on {}", ctx.channel().localAddress(), cause);
  }
}
