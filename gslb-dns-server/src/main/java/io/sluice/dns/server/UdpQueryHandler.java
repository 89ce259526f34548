package io.sluice.dns.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers UDP queries on the event loop: copies each datagram into the loop's scratch buffer, asks
 * the {@link Responder}, writes the reply, and flushes once per read batch; a reply the send queue
 * has no room for is dropped and counted ({@link UdpQueues}). Errors are logged and the socket
 * stays open.
 */
@Sharable
final class UdpQueryHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(UdpQueryHandler.class);

  private final Responder responder;
  private final UdpQueues queues;

  UdpQueryHandler(Responder responder, UdpQueues queues) {
    this.responder = responder;
    this.queues = queues;
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
        // A pooled direct buffer goes to the socket as is; a heap buffer would be copied into
        // one on the write path anyway.
        ByteBuf reply = ctx.alloc().directBuffer(out.length).writeBytes(out);
        ctx.write(new DatagramPacket(reply, packet.sender()));
      }
    } catch (RuntimeException e) {
      log.warn("failed to answer a UDP query from {}", packet.sender(), e);
    } finally {
      packet.release();
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
