package io.sluice.dns.tap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ObservabilityConfig;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * The dnstap file the output writes, read back by an independent decoder: Frame Streams START with
 * the dnstap content type, one AUTH_QUERY and one AUTH_RESPONSE per answered query (only the query
 * for a dropped one) carrying the exact wire messages, the client address and protocol, then STOP.
 */
class DnstapOutputTest {
  @TempDir Path dir;

  @Test
  void writesQueriesAndResponsesAsFrameStreamsOfDnstapMessages() throws Exception {
    DnstapOutput out =
        DnstapOutput.open(new ObservabilityConfig.Dnstap("tap.fstrm", null, 64, "node-1"), dir);
    byte[] query =
        Message.newQuery(Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN))
            .toWire();
    byte[] padded = java.util.Arrays.copyOf(query, query.length + 100);
    Message response = new Message(new Message(query).getHeader().getID());
    byte[] answer = response.toWire();
    out.offer(padded, query.length, answer, InetAddress.getByName("192.0.2.7"), false);
    out.offer(query, query.length, null, InetAddress.getByName("2001:db8::9"), true);
    out.close();

    DnstapDecoder.Stream s = DnstapDecoder.read(Files.readAllBytes(dir.resolve("tap.fstrm")));
    assertEquals("protobuf:dnstap.Dnstap", s.contentType());
    assertTrue(s.stopped(), "the file ends with STOP");
    assertEquals(3, s.taps().size());
    DnstapDecoder.Tap q = s.taps().get(0);
    assertEquals("node-1", q.identity());
    assertEquals("sluice", q.version());
    assertEquals(1, q.dnstapType(), "Dnstap.Type MESSAGE");
    assertEquals(DnstapEncoder.AUTH_QUERY, q.type());
    assertEquals(DnstapEncoder.INET, q.family());
    assertEquals(DnstapEncoder.UDP, q.protocol());
    assertArrayEquals(InetAddress.getByName("192.0.2.7").getAddress(), q.queryAddress());
    assertArrayEquals(query, q.queryMessage(), "the query's own bytes, not the buffer's tail");
    assertTrue(q.queryTimeSec() > 1_600_000_000L);
    DnstapDecoder.Tap r = s.taps().get(1);
    assertEquals(DnstapEncoder.AUTH_RESPONSE, r.type());
    assertArrayEquals(answer, r.responseMessage());
    assertTrue(r.responseTimeSec() >= r.queryTimeSec());
    DnstapDecoder.Tap v6 = s.taps().get(2);
    assertEquals(DnstapEncoder.AUTH_QUERY, v6.type());
    assertEquals(DnstapEncoder.INET6, v6.family());
    assertEquals(DnstapEncoder.TCP, v6.protocol());
    assertEquals(0, out.dropped());
    assertEquals(3, out.written());
  }

  @Test
  void aSocketReaderGetsTheHandshakeThenTheMessagesAndStop() throws Exception {
    Path sock = dir.resolve("tap.sock");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(sock));
      DnstapOutput out =
          DnstapOutput.open(new ObservabilityConfig.Dnstap(null, "tap.sock", 64, null), dir);
      try (SocketChannel reader = server.accept()) {
        DataInputStream in = new DataInputStream(Channels.newInputStream(reader));
        OutputStream back = Channels.newOutputStream(reader);
        assertEquals(FrameStreams.READY, FrameStreams.readControl(in));
        back.write(FrameStreams.control(FrameStreams.ACCEPT));
        back.flush();
        assertEquals(FrameStreams.START, FrameStreams.readControl(in));
        byte[] query =
            Message.newQuery(
                    Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN))
                .toWire();
        out.offer(query, query.length, query, InetAddress.getByName("192.0.2.8"), false);
        out.close();
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(FrameStreams.control(FrameStreams.START));
        file.write(in.readAllBytes());
        DnstapDecoder.Stream s = DnstapDecoder.read(file.toByteArray());
        assertEquals(2, s.taps().size());
        assertTrue(s.stopped(), "STOP after the messages");
        assertArrayEquals(query, s.taps().get(0).queryMessage());
        assertEquals(0, out.dropped());
      }
    }
  }
}
