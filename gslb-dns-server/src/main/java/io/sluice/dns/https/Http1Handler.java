package io.sluice.dns.https;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** HTTP/1.1 requests, whole (aggregated), answered by {@link HttpsAnswers} in order. */
@Sharable
final class Http1Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
  /** Stands in for a peer without an IP address, which only test channels have. */
  static final InetAddress UNKNOWN_CLIENT = InetAddress.getLoopbackAddress();

  private final HttpsAnswers answers;

  Http1Handler(HttpsAnswers answers) {
    this.answers = answers;
  }

  static InetAddress client(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress remote
        ? remote.getAddress()
        : UNKNOWN_CLIENT;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    HttpsAnswers.Reply reply;
    if (req.decoderResult().isFailure()) {
      reply = HttpsAnswers.Reply.text(400, "malformed request");
      answers.count(HttpsAnswers.path(req.uri()), req.method(), 400);
    } else {
      ByteBuf content = req.content();
      byte[] body = new byte[content.readableBytes()];
      content.getBytes(content.readerIndex(), body);
      HttpHeaders h = req.headers();
      reply =
          answers.answer(
              new HttpsAnswers.Request(
                  req.method(),
                  req.uri(),
                  h.get(HttpHeaderNames.CONTENT_TYPE),
                  h.get(HttpHeaderNames.AUTHORIZATION),
                  body,
                  client(ctx)));
    }
    FullHttpResponse resp =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(reply.status()),
            Unpooled.wrappedBuffer(reply.body()));
    reply.headers(resp.headers()::set);
    boolean keepAlive = HttpUtil.isKeepAlive(req);
    HttpUtil.setKeepAlive(resp, keepAlive);
    var f = ctx.writeAndFlush(resp);
    if (!keepAlive) {
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
