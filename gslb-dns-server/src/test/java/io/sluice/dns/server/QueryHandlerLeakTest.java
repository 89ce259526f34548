package io.sluice.dns.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ResponderSettings;
import io.sluice.dns.zone.ZoneCompiler;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/** The UDP and TCP handlers answer through embedded channels and leak no buffer. */
class QueryHandlerLeakTest {
  private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 40000);
  private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 53);

  private Responder responder;

  @BeforeEach
  void setUp() throws Exception {
    String yaml =
        """
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records: [ { name: www, type: A, data: 192.0.2.80 } ]
        """;
    SluiceConfig config = ConfigLoader.parse(yaml, "t.yaml", Path.of("."));
    responder =
        new Responder(
            ZoneCompiler.compile(config, "t.yaml"),
            ResponderSettings.of(config, "test"),
            new AllEndpointsPlanner(new SnapshotStore(Snapshot.initial(config))),
            GslbMetrics.NOOP);
  }

  private static byte[] query(String name) throws Exception {
    return Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)).toWire();
  }

  @Test
  void udpHandlerReleasesQueriesAndAnswers() throws Exception {
    EmbeddedChannel ch = new EmbeddedChannel(UdpQueryHandler.netty(responder, new UdpQueues()));
    ByteBuf in = Unpooled.wrappedBuffer(query("www.example.test."));
    ch.writeInbound(new DatagramPacket(in, SERVER, CLIENT));
    assertEquals(0, in.refCnt(), "query released");
    DatagramPacket out = ch.readOutbound();
    assertEquals(CLIENT, out.recipient());
    byte[] bytes = new byte[out.content().readableBytes()];
    out.content().readBytes(bytes);
    assertEquals(Rcode.NOERROR, new Message(bytes).getRcode());
    ByteBuf reply = out.content();
    out.release();

    ByteBuf garbage = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
    ch.writeInbound(new DatagramPacket(garbage, SERVER, CLIENT));
    assertEquals(0, garbage.refCnt(), "dropped query released");
    assertNull(ch.readOutbound());
    assertFalse(ch.finishAndReleaseAll());
    // Replies are slices of the socket's reply buffer, which goes when the socket does.
    assertEquals(0, reply.refCnt(), "reply buffer released");
  }

  @Test
  void udpRepliesOutlastTheirReplyBufferAndAllAreReleased() throws Exception {
    EmbeddedChannel ch = new EmbeddedChannel(UdpQueryHandler.netty(responder, new UdpQueues()));
    byte[] q = query("www.example.test.");
    // Enough replies to fill several reply buffers; each stays readable until it is released.
    List<DatagramPacket> sent = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      q[0] = (byte) (i >>> 8);
      q[1] = (byte) i;
      ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(q), SERVER, CLIENT));
      sent.add(ch.readOutbound());
    }
    List<ByteBuf> buffers = new ArrayList<>();
    for (int i = 0; i < sent.size(); i++) {
      ByteBuf content = sent.get(i).content();
      byte[] bytes = new byte[content.readableBytes()];
      content.getBytes(content.readerIndex(), bytes);
      Message m = new Message(bytes);
      assertEquals(i & 0xffff, m.getHeader().getID(), "reply " + i + " intact");
      assertEquals(Rcode.NOERROR, m.getRcode());
      buffers.add(content);
      sent.get(i).release();
    }
    assertFalse(ch.finishAndReleaseAll());
    for (ByteBuf b : buffers) {
      assertEquals(0, b.refCnt(), "every reply buffer released");
    }
  }

  @Test
  void udpReplyIsDroppedAndCountedWhileTheSendQueueIsFull() throws Exception {
    UdpQueues queues = new UdpQueues();
    EmbeddedChannel ch = new EmbeddedChannel(UdpQueryHandler.netty(responder, queues));
    ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
    // Replies the kernel has not taken yet, past the high-water mark.
    ByteBuf waiting = Unpooled.wrappedBuffer(new byte[64]);
    ch.write(new DatagramPacket(waiting, CLIENT));
    assertFalse(ch.isWritable());
    ch.writeInbound(
        new DatagramPacket(Unpooled.wrappedBuffer(query("www.example.test.")), SERVER, CLIENT));
    assertEquals(1, queues.sendQueueDrops());
    DatagramPacket flushed = ch.readOutbound();
    assertEquals(64, flushed.content().readableBytes(), "only the reply queued before");
    assertTrue(flushed.release());
    assertNull(ch.readOutbound(), "the new reply was dropped, not queued");
    // Once the queue drained, replies go out again.
    assertTrue(ch.isWritable());
    ch.writeInbound(
        new DatagramPacket(Unpooled.wrappedBuffer(query("www.example.test.")), SERVER, CLIENT));
    DatagramPacket reply = ch.readOutbound();
    // A slice of the handler's reply buffer: releasing it frees its share, not the buffer.
    assertEquals(Rcode.NOERROR, new Message(ByteBufUtil.getBytes(reply.content())).getRcode());
    reply.release();
    assertEquals(1, queues.sendQueueDrops());
    assertFalse(ch.finishAndReleaseAll());
  }

  @Test
  void tcpPipelineFramesAnswersAndReleases() throws Exception {
    EmbeddedChannel ch =
        new EmbeddedChannel(
            new LengthFieldBasedFrameDecoder(65535, 0, 2, 0, 2),
            new LengthFieldPrepender(2),
            new TcpQueryHandler(responder));
    byte[] q = query("www.example.test.");
    ByteBuf two = Unpooled.buffer();
    for (int i = 0; i < 2; i++) {
      two.writeShort(q.length).writeBytes(q);
    }
    // A third frame whose length prefix promises more than arrives.
    two.writeShort(500).writeBytes(new byte[] {1, 2, 3});
    ch.writeInbound(two);
    int answers = 0;
    ByteBuf out;
    while ((out = ch.readOutbound()) != null) {
      // LengthFieldPrepender emits the prefix and the body as separate buffers.
      if (out.readableBytes() > 2) {
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        assertEquals(Rcode.NOERROR, new Message(bytes).getRcode());
        answers++;
      }
      assertTrue(out.release());
    }
    assertEquals(2, answers);
    assertFalse(ch.finishAndReleaseAll());
    // The incomplete third frame stays buffered until the connection closes, then is freed.
    assertEquals(0, two.refCnt(), "input released");
  }
}
