package io.sluice.dns.https;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.IntObjectHashMap;
import java.util.Arrays;

/**
 * The requests of one HTTP/2 connection, answered from its frames (after {@code Http2FrameCodec}):
 * a request without a body (every GET) is answered as its HEADERS frame arrives, one with a body
 * once its last DATA frame has. Answering on the connection itself rather than through a child
 * channel per stream saves a channel, its pipeline and two message conversions per request. The
 * responses of one read are flushed together.
 */
final class Http2Handler extends ChannelDuplexHandler {
  private static final byte[] EMPTY = new byte[0];

  private final HttpsAnswers answers;

  /**
   * Request body bytes one connection may have in flight over all its streams. Credit goes back to
   * the peer as bodies are copied, so without this cap 100 streams could hold 6.4 MB each
   * connection; two bodies of the largest DNS message fit.
   */
  static final int MAX_PENDING_BYTES = 2 * HttpsAnswers.MAX_MESSAGE;

  /** The requests whose body is still arriving, by stream id; at most the streams allowed. */
  private final IntObjectHashMap<Pending> pending = new IntObjectHashMap<>();

  /** The body bytes held in {@link #pending}. */
  private int pendingBytes;

  /** A request's headers, the body received so far, and when its first byte arrived. */
  private static final class Pending {
    final Http2Headers headers;
    final long since;
    byte[] body = new byte[512];
    int length;

    Pending(Http2Headers headers, long since) {
      this.headers = headers;
      this.since = since;
    }
  }

  /** Null only in tests of the request path alone. */
  private final RequestDeadline deadline;

  Http2Handler(HttpsAnswers answers) {
    this(answers, null);
  }

  /**
   * Requests answered by {@code answers}; streams not ended in time are closed by {@code deadline}.
   */
  Http2Handler(HttpsAnswers answers, RequestDeadline deadline) {
    this.answers = answers;
    this.deadline = deadline;
    if (deadline != null) {
      deadline.streams(this::oldestPending);
    }
  }

  /** When the first byte of the oldest stream still waiting for its end arrived. */
  private long oldestPending() {
    long oldest = RequestDeadline.NONE;
    // The event loop's ticker counts from the start of the process: its readings do not wrap.
    for (Pending p : pending.values()) {
      oldest = Math.min(oldest, p.since);
    }
    return oldest;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof Http2HeadersFrame h) {
        if (h.isEndStream()) {
          answer(ctx, h.stream(), h.headers(), EMPTY);
        } else {
          pending.put(
              h.stream().id(), new Pending(h.headers(), deadline == null ? 0 : deadline.since()));
        }
      } else if (msg instanceof Http2DataFrame d) {
        data(ctx, d);
      } else if (msg instanceof Http2ResetFrame r) {
        remove(r.stream().id());
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void data(ChannelHandlerContext ctx, Http2DataFrame d) {
    // The body is copied out at once, so its flow-control credit goes straight back.
    int credit = d.initialFlowControlledBytes();
    if (credit > 0) {
      ctx.write(new DefaultHttp2WindowUpdateFrame(credit).stream(d.stream()));
    }
    Pending p = pending.get(d.stream().id());
    if (p == null) {
      return; // answered already (too large), or reset
    }
    int n = d.content().readableBytes();
    if (p.length + n > HttpsAnswers.MAX_MESSAGE || pendingBytes + n > MAX_PENDING_BYTES) {
      remove(d.stream().id());
      String path = String.valueOf(p.headers.path());
      answers.count(HttpsAnswers.path(path), method(p.headers), 413);
      write(ctx, d.stream(), HttpsAnswers.Reply.text(413, "request body too large"));
      return;
    }
    if (p.length + n > p.body.length) {
      p.body = Arrays.copyOf(p.body, Math.max(p.length + n, 2 * p.body.length));
    }
    d.content().getBytes(d.content().readerIndex(), p.body, p.length, n);
    p.length += n;
    pendingBytes += n;
    if (d.isEndStream()) {
      remove(d.stream().id());
      answer(ctx, d.stream(), p.headers, Arrays.copyOf(p.body, p.length));
    }
  }

  private void remove(int stream) {
    Pending p = pending.remove(stream);
    if (p != null) {
      pendingBytes -= p.length;
    }
  }

  private static HttpMethod method(Http2Headers h) {
    CharSequence m = h.method();
    return m == null ? HttpMethod.GET : HttpMethod.valueOf(m.toString());
  }

  private void answer(
      ChannelHandlerContext ctx, Http2FrameStream stream, Http2Headers h, byte[] body) {
    CharSequence path = h.path();
    HttpsAnswers.Reply reply;
    if (path == null || h.method() == null) {
      reply = HttpsAnswers.Reply.text(400, "malformed request");
      answers.count("", method(h), 400);
    } else {
      CharSequence type = h.get(HttpHeaderNames.CONTENT_TYPE);
      CharSequence auth = h.get(HttpHeaderNames.AUTHORIZATION);
      reply =
          answers.answer(
              new HttpsAnswers.Request(
                  method(h),
                  path.toString(),
                  type == null ? null : type.toString(),
                  auth == null ? null : auth.toString(),
                  body,
                  Http1Handler.client(ctx)));
    }
    write(ctx, stream, reply);
  }

  private static void write(
      ChannelHandlerContext ctx, Http2FrameStream stream, HttpsAnswers.Reply reply) {
    Http2Headers h =
        new DefaultHttp2Headers().status(HttpResponseStatus.valueOf(reply.status()).codeAsText());
    reply.headers(h::set);
    ctx.write(new DefaultHttp2HeadersFrame(h).stream(stream));
    ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(reply.body()), true).stream(stream));
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    ctx.flush();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof Http2FrameStreamException e) {
      // The codec resets that stream; the connection and its other streams go on.
      remove(e.stream().id());
      return;
    }
    ctx.close();
  }
}
