package io.sluice.dns.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TcpCloseReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The TCP framer's deadlines on the embedded channel's manual clock: the message deadline runs from
 * a message's first byte and is not extended by later bytes; the idle deadline runs from the accept
 * or the last complete message.
 */
class TcpFramerTest {
  private static final long IDLE = TimeUnit.SECONDS.toNanos(10);
  private static final long MESSAGE = TimeUnit.SECONDS.toNanos(1);

  private final List<TcpCloseReason> closes = new ArrayList<>();

  private EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    GslbMetrics metrics =
        new GslbMetrics() {
          @Override
          public void dnsTcpClosed(TcpCloseReason reason) {
            closes.add(reason);
          }
        };
    ch.pipeline().addLast(new TcpFramer(null, IDLE, MESSAGE, metrics));
    return ch;
  }

  private static void advance(EmbeddedChannel ch, long millis) {
    ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
  }

  @Test
  void bytesTrickledWithinTheIdleTimeoutDoNotExtendTheMessageDeadline() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 12}));
    for (int i = 0; i < 9; i++) {
      advance(ch, 100);
      ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1}));
      assertTrue(ch.isOpen(), "open after " + (i + 1) * 100 + " ms");
    }
    advance(ch, 100);
    assertFalse(ch.isOpen(), "closed one message timeout after the first byte");
    assertEquals(List.of(TcpCloseReason.MESSAGE_TIMEOUT), closes);
  }

  @Test
  void anIdleConnectionIsClosedAfterTheIdleTimeoutFromItsLastMessage() {
    EmbeddedChannel ch = channel();
    advance(ch, 9_000);
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 2, 7, 8}));
    ByteBuf frame = ch.readInbound();
    assertArrayEquals(new byte[] {7, 8}, ByteBufUtil.getBytes(frame));
    frame.release();
    advance(ch, 9_900);
    assertTrue(ch.isOpen(), "the idle timeout restarts at a complete message");
    advance(ch, 200);
    assertFalse(ch.isOpen());
    assertEquals(List.of(TcpCloseReason.IDLE_TIMEOUT), closes);
  }

  @Test
  void aMessageInTwoPiecesWithinItsDeadlineIsDelivered() {
    EmbeddedChannel ch = channel();
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 3, 1}));
    advance(ch, 900);
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {2, 3, 0}));
    ByteBuf frame = ch.readInbound();
    assertArrayEquals(new byte[] {1, 2, 3}, ByteBufUtil.getBytes(frame));
    frame.release();
    // The trailing byte starts the next message, whose deadline is its own.
    advance(ch, 900);
    assertTrue(ch.isOpen());
    advance(ch, 200);
    assertFalse(ch.isOpen());
  }
}
