package io.sluice.dns.https;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import io.sluice.core.spi.GslbMetrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 request path between two real HTTP/2 codecs (a Netty client and the server's
 * pipeline), bytes moved by hand: request bodies a connection has in flight are capped, so a client
 * cannot make one connection hold a body of the largest size on each of its streams.
 */
class Http2HandlerTest {
  /** The client end: opens streams and records the status of each response. */
  private static final class Client extends Http2ChannelDuplexHandler {
    final List<String> statuses = new ArrayList<>();

    Http2FrameStream open() {
      return newStream();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2HeadersFrame h) {
        statuses.add(h.headers().status().toString());
      }
      ReferenceCountUtil.release(msg);
    }
  }

  private static void pump(EmbeddedChannel client, EmbeddedChannel server) {
    boolean moved = true;
    while (moved) {
      moved = false;
      for (ByteBuf b; (b = client.readOutbound()) != null; moved = true) {
        server.writeInbound(b);
      }
      for (ByteBuf b; (b = server.readOutbound()) != null; moved = true) {
        client.writeInbound(b);
      }
    }
  }

  @Test
  void bodiesInFlightOnOneConnectionAreCapped() {
    // Nothing is answered here but the 413, which needs neither responder nor settings.
    HttpsAnswers answers = new HttpsAnswers(null, () -> null, null, GslbMetrics.NOOP);
    EmbeddedChannel server =
        new EmbeddedChannel(Http2FrameCodecBuilder.forServer().build(), new Http2Handler(answers));
    Client client = new Client();
    EmbeddedChannel cli = new EmbeddedChannel(Http2FrameCodecBuilder.forClient().build(), client);
    pump(cli, server);
    // Three bodies of 60000 bytes, none finished: two fit in the connection's 128 KiB, not three.
    for (int i = 0; i < 3; i++) {
      Http2FrameStream stream = client.open();
      cli.writeOutbound(
          new DefaultHttp2HeadersFrame(
                  new DefaultHttp2Headers()
                      .method("POST")
                      .path("/dns-query")
                      .scheme("https")
                      .authority("localhost")
                      .set("content-type", "application/dns-message"))
              .stream(stream));
      cli.writeOutbound(
          new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(new byte[60_000]), false)
              .stream(stream));
      pump(cli, server);
    }
    pump(cli, server);
    assertEquals(List.of("413"), client.statuses);
    server.finishAndReleaseAll();
    cli.finishAndReleaseAll();
  }
}
