package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A slow-loris flood without a token: hundreds of loopback connections that trickle header lines.
 * The listener keeps at most its cap of them, an operator's rollback still gets through, and every
 * trickling connection is closed once its request deadline passes, however often it sends a byte.
 */
class SlowLorisTest {
  private static final int FLOOD = 300;
  private static final int MAX = 40;

  @Test
  void aTricklingFloodNeitherLocksOutTheOperatorNorKeepsItsConnections() throws Exception {
    try (AdminFixture f =
        new AdminFixture(
            "  connections: { max: " + MAX + ", perSource: 30, requestDeadline: 1s }")) {
      List<Socket> flood = new ArrayList<>();
      AtomicBoolean trickling = new AtomicBoolean(true);
      Thread trickle = null;
      try {
        for (int i = 0; i < FLOOD; i++) {
          Socket s = new Socket("127.0.0.1", f.server.port());
          s.getOutputStream()
              .write("GET /api/v1/status HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.UTF_8));
          flood.add(s);
        }
        trickle =
            new Thread(
                () -> {
                  while (trickling.get()) {
                    for (Socket s : flood) {
                      try {
                        OutputStream out = s.getOutputStream();
                        out.write("X-Slow: 1\r\n".getBytes(StandardCharsets.UTF_8));
                      } catch (IOException closedByTheServer) {
                        // expected once the server gives up on it
                      }
                    }
                    try {
                      Thread.sleep(100);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
        trickle.start();
        for (int i = 0; i < 5; i++) {
          var r = f.post("/api/v1/services/app.example.com/rollback", OPERATOR, "{}");
          assertEquals(200, r.statusCode(), r.body());
          assertTrue(
              f.server.connectionCounts().open() <= MAX, f.server.connectionCounts()::toString);
        }
        // Every trickling connection is closed: evicted to make room, or cut at its deadline.
        for (Socket s : flood) {
          s.setSoTimeout(20_000);
          assertTrue(closedByPeer(s), "a trickling connection is still open");
        }
        ConnectionGuard.Counts c = f.server.connectionCounts();
        assertTrue(c.evicted() >= FLOOD - MAX, c.toString());
        assertTrue(c.timedOut() > 0, "the connections kept were cut by the deadline: " + c);
        assertEquals(0, c.refused(), c.toString());
      } finally {
        trickling.set(false);
        if (trickle != null) {
          trickle.join();
        }
        for (Socket s : flood) {
          s.close();
        }
      }
    }
  }

  /** True when the server closed {@code s}: end of stream or a reset, without any answer. */
  private static boolean closedByPeer(Socket s) throws IOException {
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
