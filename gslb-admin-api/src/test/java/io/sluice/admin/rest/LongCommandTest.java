package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A request being executed keeps its connection however long the command takes: a reload slower
 * than the idle timeout still gets its reply, and the idle timeout closes the connection only once
 * it is silent between requests.
 */
class LongCommandTest {
  @Test
  void aReloadLongerThanTheIdleTimeoutGetsItsReply() throws Exception {
    try (AdminFixture f = new AdminFixture("  connections: { idleTimeout: 1s }")) {
      f.reloader.takes(Duration.ofSeconds(3));
      try (Socket s = new Socket("127.0.0.1", f.server.port())) {
        s.setSoTimeout(20_000);
        OutputStream out = s.getOutputStream();
        out.write(
            ("POST /api/v1/config/reload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                    + ADMIN
                    + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String reply = readReply(s.getInputStream());
        assertTrue(reply.startsWith("HTTP/1.1 200"), reply);
        assertTrue(reply.contains("reloaded by"), reply);
        assertEquals(1, f.reloader.calls());

        // Between requests the idle timeout applies again: the silent connection is closed.
        s.setSoTimeout(15_000);
        int next;
        try {
          next = s.getInputStream().read();
        } catch (SocketTimeoutException e) {
          throw new AssertionError("an idle connection was kept open", e);
        }
        assertEquals(-1, next, "the server closed the idle connection");
      }
    }
  }

  /** Reads one response with a Content-Length body. */
  private static String readReply(InputStream in) throws Exception {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new AssertionError("connection closed without a reply: '" + head + "'");
      }
      head.write(b);
    }
    String h = head.toString(StandardCharsets.US_ASCII);
    int length = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    return h + new String(body, StandardCharsets.UTF_8);
  }
}
