package io.sluice.dns.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import io.sluice.dns.transfer.ZoneTransfers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the length-delimited queries of a TCP connection (RFC 7766): every frame is answered as
 * it arrives, so pipelined queries need no waiting. Deadlines are {@link TcpFramer}'s.
 */
@Sharable
final class TcpQueryHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(TcpQueryHandler.class);

  /** Stands in for a peer without an IP address, which only test channels have. */
  private static final InetAddress UNKNOWN_CLIENT = InetAddress.getLoopbackAddress();

  private final Responder responder;

  /** Zone transfers; null when the server serves no store (transfers are then refused). */
  private final TcpTransfers transfers;

  /** A handler without zone transfers. */
  TcpQueryHandler(Responder responder) {
    this(responder, null);
  }

  TcpQueryHandler(Responder responder, TcpTransfers transfers) {
    this.responder = responder;
    this.transfers = transfers;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf frame)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (transfers != null && transfers.deferred(ctx, frame)) {
      return; // answered in order once the transfer under way is sent
    }
    try {
      int len = frame.readableBytes();
      byte[] in = Scratch.get(len);
      frame.getBytes(frame.readerIndex(), in, 0, len);
      InetAddress client =
          ctx.channel().remoteAddress() instanceof InetSocketAddress remote
              ? remote.getAddress()
              : UNKNOWN_CLIENT;
      if (transfers != null && ZoneTransfers.isTransfer(in, len)) {
        transfers.start(ctx, in, len, client, this);
        return;
      }
      byte[] out = responder.respond(in, len, client, Transport.TCP);
      if (out != null) {
        ctx.write(ctx.alloc().directBuffer(out.length).writeBytes(out));
      }
    } catch (RuntimeException e) {
      log.warn("failed to answer a TCP query from {}", ctx.channel().remoteAddress(), e);
      ctx.close();
    } finally {
      frame.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
  }

  /**
   * Stops reading while replies pile up unsent, so a client that pipelines queries but never reads
   * answers cannot grow the server's memory without bound.
   */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // A transfer under way keeps reading off until its last message is out.
    if (transfers == null || !transfers.writabilityChanged(ctx)) {
      ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (transfers != null) {
      transfers.closed(ctx);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("closing TCP connection from {}", ctx.channel().remoteAddress(), cause);
    ctx.close();
  }
}
