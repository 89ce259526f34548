package io.sluice.dns.https;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Follows the frame boundaries of the decrypted HTTP/2 bytes ahead of the frame codec, which only
 * hands on whole frames: when a read ends on a boundary outside a header block (HEADERS without
 * END_HEADERS up to its last CONTINUATION), every byte received is part of a whole frame, so the
 * {@link RequestDeadline} stops the clock it started at their first byte. Control frames (PING,
 * SETTINGS, WINDOW_UPDATE) therefore never keep it running; streams still waiting for their end are
 * timed by the request handler. Only the nine-byte frame headers are looked at, in place.
 */
final class Http2Frames extends ChannelInboundHandlerAdapter {
  private static final int HEADER = 9;
  private static final int TYPE_HEADERS = 0x1;
  private static final int TYPE_PUSH_PROMISE = 0x5;
  private static final int TYPE_CONTINUATION = 0x9;
  private static final int FLAG_END_HEADERS = 0x4;

  private final RequestDeadline deadline;

  /** Bytes left of the current unit: the client preface first, then frame headers and payloads. */
  private int left = 24;

  private boolean inHeader;
  private int headerRead;
  private int length;
  private int type;
  private boolean inHeaderBlock;

  Http2Frames(RequestDeadline deadline) {
    this.deadline = deadline;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    boolean whole = false;
    if (msg instanceof ByteBuf b) {
      follow(b);
      whole = left == 0 && !inHeaderBlock;
    }
    ctx.fireChannelRead(msg);
    if (whole) {
      deadline.quiet();
    }
  }

  private void follow(ByteBuf b) {
    for (int i = b.readerIndex(), end = b.writerIndex(); i < end; ) {
      if (left == 0) {
        inHeader = true;
        headerRead = 0;
        length = 0;
        left = HEADER;
      }
      if (inHeader) {
        int v = b.getUnsignedByte(i++);
        left--;
        if (headerRead < 3) {
          length = length << 8 | v;
        } else if (headerRead == 3) {
          type = v;
        } else if (headerRead == 4) {
          boolean endHeaders = (v & FLAG_END_HEADERS) != 0;
          if (type == TYPE_HEADERS || type == TYPE_PUSH_PROMISE || type == TYPE_CONTINUATION) {
            inHeaderBlock = !endHeaders;
          }
        }
        headerRead++;
        if (left == 0) {
          inHeader = false;
          left = length;
        }
      } else {
        int n = Math.min(left, end - i);
        i += n;
        left -= n;
      }
    }
  }
}
