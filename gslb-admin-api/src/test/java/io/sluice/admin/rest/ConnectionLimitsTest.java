package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.testing.RawHttp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
      assertTrue(RawHttp.readResponse(trusted).startsWith("HTTP/1.1 200 "));
      awaitOpen(f, 3);
      try (Socket second = open(f, "127.0.0.2", PARTIAL)) {
        assertTrue(
            RawHttp.closedByServer(first, 1000),
            "the oldest unauthenticated connection of 127.0.0.2");
        assertFalse(RawHttp.closedByServer(other, 1000), "127.0.0.1 is not touched");
        assertFalse(RawHttp.closedByServer(second, 1000));
        trusted.getOutputStream().write(AUTHENTICATED.getBytes(StandardCharsets.US_ASCII));
        assertTrue(RawHttp.readResponse(trusted).startsWith("HTTP/1.1 200 "), "never evicted");
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
      assertTrue(RawHttp.readResponse(a).startsWith("HTTP/1.1 200 "));
      assertTrue(RawHttp.readResponse(b).startsWith("HTTP/1.1 200 "));
      try (Socket c = open(f, "127.0.0.1", PARTIAL)) {
        assertTrue(RawHttp.closedByServer(c, 1000));
      }
      assertEquals(1, f.server.connectionCounts().refused());
      a.getOutputStream().write(AUTHENTICATED.getBytes(StandardCharsets.US_ASCII));
      assertTrue(
          RawHttp.readResponse(a).startsWith("HTTP/1.1 200 "), "the trusted ones keep working");
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
}
