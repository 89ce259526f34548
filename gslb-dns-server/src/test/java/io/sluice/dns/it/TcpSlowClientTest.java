package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TcpCloseReason;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The RFC 7766 defences of the TCP listener against slow clients, over real sockets: more slow
 * connections than the table holds, each trickling a byte of a never-finished query, cannot keep
 * real TCP queries out, and a connection that trickles is closed by the message deadline although
 * every byte arrives well within the idle timeout.
 */
class TcpSlowClientTest {
  private static final int SLOW = 1100;

  private static String config(String limits) {
    return TestZones.CONFIG
        .replace("maxTcpConnections: 64", limits)
        .replace("tcpIdleTimeout: 500ms", "tcpIdleTimeout: 1h")
        .replace("tcpMessageTimeout: 500ms", "tcpMessageTimeout: 1h");
  }

  /** Counts the connections the server closes, by reason. */
  static final class Closes implements GslbMetrics {
    final Map<TcpCloseReason, LongAdder> byReason = new EnumMap<>(TcpCloseReason.class);

    Closes() {
      for (TcpCloseReason r : TcpCloseReason.values()) {
        byReason.put(r, new LongAdder());
      }
    }

    @Override
    public void dnsTcpClosed(TcpCloseReason reason) {
      byReason.get(reason).increment();
    }

    long count(TcpCloseReason reason) {
      return byReason.get(reason).sum();
    }
  }

  @Test
  void slowFloodFromOneSourceDoesNotStopTcpQueries() throws Exception {
    // The release defaults: 1024 connections, 64 per source; the flood shares the resolver's
    // address, as an attacker on the same host would.
    Closes closes = new Closes();
    flood(config("maxTcpConnections: 1024"), InetAddress.getLoopbackAddress(), 64, closes);
    assertTrue(closes.count(TcpCloseReason.SOURCE_LIMIT) >= SLOW - 64);
    assertEquals(0, closes.count(TcpCloseReason.TABLE_FULL));
  }

  @Test
  void slowFloodFromManySourcesDoesNotStopTcpQueries() throws Exception {
    Closes closes = new Closes();
    flood(
        config("maxTcpConnections: 1024\n  maxTcpConnectionsPerSource: 1000000"),
        InetAddress.getByName("127.0.0.2"),
        1024,
        closes);
    assertTrue(closes.count(TcpCloseReason.TABLE_FULL) >= SLOW - 1024);
  }

  private static void flood(String yaml, InetAddress from, int expectedOpen, Closes closes)
      throws Exception {
    List<Socket> slow = new ArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService trickle = Executors.newSingleThreadExecutor();
    try (TestServer server = TestServer.start(yaml, Path.of("."), closes)) {
      InetSocketAddress target = new InetSocketAddress(TestServer.LOOPBACK, server.port());
      for (int i = 0; i < SLOW; i++) {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(target, 5000);
        s.getOutputStream().write(0); // the first byte of a length prefix
        slow.add(s);
      }
      Future<?> trickling =
          trickle.submit(
              () -> {
                while (!stop.get()) {
                  for (Socket s : slow) {
                    try {
                      s.getOutputStream().write(0);
                    } catch (IOException closedByServer) {
                      // expected for connections the table closed
                    }
                  }
                  sleep(200);
                }
              });
      for (int i = 0; i < 20; i++) {
        Message m = server.query("www.example.test.", Type.A, true);
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertFalse(m.getSection(Section.ANSWER).isEmpty());
      }
      stop.set(true);
      trickling.get(10, TimeUnit.SECONDS);
      // The resolver's connections come and go; the slow ones stay up to the cap.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (server.node.server().openTcpConnections() > expectedOpen
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(
          server.node.server().openTcpConnections() <= expectedOpen,
          "open: " + server.node.server().openTcpConnections());
      assertTrue(server.node.server().evictedTcpConnections() >= SLOW - expectedOpen);
    } finally {
      stop.set(true);
      trickle.shutdownNow();
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void tricklingConnectionIsClosedByTheMessageDeadline() throws Exception {
    String yaml =
        TestZones.CONFIG
            .replace("tcpIdleTimeout: 500ms", "tcpIdleTimeout: 1h")
            .replace("tcpMessageTimeout: 500ms", "tcpMessageTimeout: 300ms");
    Closes closes = new Closes();
    try (TestServer server = TestServer.start(yaml, Path.of("."), closes);
        Socket s = server.tcp()) {
      // A 12-byte query announced, then one byte every 50 ms: every byte arrives long before the
      // idle timeout, the message never within its deadline.
      s.getOutputStream().write(new byte[] {0, 12});
      s.setSoTimeout(50);
      InputStream in = s.getInputStream();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      boolean closed = false;
      while (!closed && System.nanoTime() < deadline) {
        try {
          s.getOutputStream().write(1);
          closed = in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
          // nothing to read yet: keep trickling
        } catch (IOException reset) {
          closed = true;
        }
      }
      assertTrue(closed, "the trickling connection was closed");
      assertEquals(1, closes.count(TcpCloseReason.MESSAGE_TIMEOUT));
      assertEquals(0, closes.count(TcpCloseReason.IDLE_TIMEOUT));
      // A query that arrives whole on the same server is still answered.
      assertEquals(Rcode.NOERROR, server.query("www.example.test.", Type.A, true).getRcode());
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
