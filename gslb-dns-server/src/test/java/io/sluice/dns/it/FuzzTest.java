package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dns.response.Transport;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Bounded, seeded malformed input: random bytes, bit flips and truncations of valid queries,
 * compression loops and lying TCP length prefixes. The responder must never throw and must answer
 * either nothing or a well-formed reply with the query's ID; the server must still answer after.
 */
class FuzzTest {
  private static final long SEED = 0x5107CEL;
  private static final int CASES = 4000;

  private static TestServer server;
  private static List<byte[]> seeds;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(TestZones.CONFIG);
    seeds = new ArrayList<>();
    String[] names = {
      "www.example.test.",
      "foo.apps.example.test.",
      "app.example.test.",
      "x.dev.example.test.",
      "nope.example.test.",
      "big.example.test."
    };
    for (String n : names) {
      Message q = Message.newQuery(Record.newRecord(Name.fromString(n), Type.A, DClass.IN));
      seeds.add(q.toWire());
      Message e = Message.newQuery(Record.newRecord(Name.fromString(n), Type.TXT, DClass.IN));
      e.addRecord(
          new OPTRecord(
              1232,
              0,
              0,
              0,
              List.of(new ClientSubnetOption(24, InetAddress.getByName("10.1.2.0")))),
          Section.ADDITIONAL);
      seeds.add(e.toWire());
    }
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** The malformed case number {@code i}. */
  private static byte[] mutate(Random r, int i) {
    byte[] seed = seeds.get(r.nextInt(seeds.size()));
    switch (i % 5) {
      case 0 -> {
        byte[] b = new byte[r.nextInt(600)];
        r.nextBytes(b);
        return b;
      }
      case 1 -> {
        byte[] b = seed.clone();
        for (int k = 1 + r.nextInt(4); k > 0; k--) {
          b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        }
        return b;
      }
      case 2 -> {
        return Arrays.copyOf(seed, r.nextInt(seed.length));
      }
      case 3 -> {
        // A name that points at itself, in the question or in an appended record.
        byte[] b = Arrays.copyOf(seed, seed.length + 13);
        int at = r.nextBoolean() ? 12 : seed.length;
        b[at] = (byte) 0xc0;
        b[at + 1] = (byte) at;
        if (at == seed.length) {
          b[11] = (byte) (b[11] + 1);
        }
        return b;
      }
      default -> {
        byte[] b = seed.clone();
        int count = 4 + 2 * r.nextInt(4);
        b[count] = (byte) r.nextInt(256);
        b[count + 1] = (byte) r.nextInt(256);
        return b;
      }
    }
  }

  @Test
  void responderSurvivesMalformedInput() throws Exception {
    Random r = new Random(SEED);
    InetAddress client = InetAddress.getLoopbackAddress();
    int answered = 0;
    for (int i = 0; i < CASES; i++) {
      byte[] in = mutate(r, i);
      byte[] buf = Arrays.copyOf(in, 65536);
      byte[] out = server.node.responder().respond(buf, in.length, client, Transport.UDP);
      if (out == null) {
        continue;
      }
      answered++;
      Message m;
      try {
        m = new Message(out);
      } catch (IOException e) {
        throw new AssertionError("case " + i + ": unparseable reply to " + Arrays.toString(in), e);
      }
      assertEquals(((in[0] & 0xff) << 8) | (in[1] & 0xff), m.getHeader().getID(), "case " + i);
      assertTrue(out.length <= 1232, "case " + i + ": UDP reply of " + out.length + " bytes");
    }
    assertTrue(answered > CASES / 4, "most malformed queries with a header get FORMERR");
  }

  @Test
  void serverStillAnswersAfterMalformedUdpAndTcp() throws Exception {
    Random r = new Random(SEED + 1);
    try (DatagramSocket s = new DatagramSocket()) {
      for (int i = 0; i < 1000; i++) {
        byte[] b = mutate(r, i);
        s.send(new DatagramPacket(b, b.length, TestServer.LOOPBACK, server.port()));
      }
    }
    for (int i = 0; i < 20; i++) {
      try (Socket s = server.tcp()) {
        byte[] b = mutate(r, i);
        int lie = b.length + r.nextInt(40) - 20;
        s.getOutputStream().write(new byte[] {(byte) (lie >>> 8), (byte) lie});
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
      }
    }
    assertEquals(Rcode.NOERROR, server.query("www.example.test.", Type.A, false).getRcode());
    assertEquals(Rcode.NOERROR, server.query("www.example.test.", Type.A, true).getRcode());
  }
}
