package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The per-address cap evicts the oldest unauthenticated connection of that address only, a
 * connection that presented a valid token is never evicted, and when every slot is held by such
 * connections a new one is refused while they keep working.
 */
class ConnectionLimitsTest {
  private static final String PARTIAL = "GET /api/v1/status HTTP/1.1\r\nHost: x\r\n";
  private static final String AUTHENTICATED =
      "GET /api/v1/version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + VIEWER + "\r\n\r\n";

  @Test
  void thePerAddressCapEvictsOnlyThatAddressesOldestUnauthenticatedConnection() throws Exception {
    try (AdminFixture f =
            new AdminFixture("  connections: { max: 10, perSource: 2, requestDeadline: 60s }");
        Socket trusted = open(f, "127.0.0.2", AUTHENTICATED);
        Socket other = open(f, "127.0.0.1", PARTIAL);
        Socket first = open(f, "127.0.0.2", PARTIAL)) {
      assertTrue(readResponse(trusted).startsWith("HTTP/1.1 200 "));
      awaitOpen(f, 3);
      try (Socket second = open(f, "127.0.0.2", PARTIAL)) {
        assertTrue(closedByServer(first), "the oldest unauthenticated connection of 127.0.0.2");
        assertFalse(closedByServer(other), "127.0.0.1 is not touched");
        assertFalse(closedByServer(second));
        trusted.getOutputStream().write(AUTHENTICATED.getBytes(StandardCharsets.US_ASCII));
        assertTrue(readResponse(trusted).startsWith("HTTP/1.1 200 "), "never evicted");
        assertEquals(1, f.server.connectionCounts().evicted());
      }
    }
  }

  @Test
  void whenAuthenticatedConnectionsHoldEverySlotANewOneIsRefused() throws Exception {
    try (AdminFixture f =
            new AdminFixture("  connections: { max: 2, perSource: 2, requestDeadline: 60s }");
        Socket a = open(f, "127.0.0.1", AUTHENTICATED);
        Socket b = open(f, "127.0.0.1", AUTHENTICATED)) {
      assertTrue(readResponse(a).startsWith("HTTP/1.1 200 "));
      assertTrue(readResponse(b).startsWith("HTTP/1.1 200 "));
      try (Socket c = open(f, "127.0.0.1", PARTIAL)) {
        assertTrue(closedByServer(c));
      }
      assertEquals(1, f.server.connectionCounts().refused());
      a.getOutputStream().write(AUTHENTICATED.getBytes(StandardCharsets.US_ASCII));
      assertTrue(readResponse(a).startsWith("HTTP/1.1 200 "), "the trusted ones keep working");
    }
  }

  private static Socket open(AdminFixture f, String from, String send) throws IOException {
    Socket s =
        new Socket(
            InetAddress.getByName("127.0.0.1"), f.server.port(), InetAddress.getByName(from), 0);
    s.getOutputStream().write(send.getBytes(StandardCharsets.US_ASCII));
    return s;
  }

  /** Waits (bounded) until the guard has admitted {@code n} connections. */
  private static void awaitOpen(AdminFixture f, int n) throws InterruptedException {
    for (int i = 0; i < 1000 && f.server.connectionCounts().open() < n; i++) {
      Thread.sleep(10);
    }
    assertEquals(n, f.server.connectionCounts().open());
  }

  /** One response, headers and Content-Length body. */
  private static String readResponse(Socket s) throws IOException {
    s.setSoTimeout(10_000);
    InputStream in = s.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        return head.toString();
      }
      head.append((char) c);
    }
    String h = head.toString().toLowerCase(Locale.ROOT);
    int at = h.indexOf("content-length: ");
    int length = Integer.parseInt(h.substring(at + 16, h.indexOf("\r\n", at)).trim());
    in.readNBytes(length);
    return head.toString();
  }

  /**
   * True when the server has closed {@code s}; false when it is still open after a short wait (no
   * answer is due on these connections, so a closed one shows at once).
   */
  private static boolean closedByServer(Socket s) throws IOException {
    s.setSoTimeout(1000);
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
