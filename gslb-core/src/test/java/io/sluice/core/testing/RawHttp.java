package io.sluice.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Locale;

/**
 * HTTP/1.1 over a raw socket (plain or TLS), for tests of what a listener does with a connection.
 */
public final class RawHttp {
  private RawHttp() {}

  /** One response: its head, with the Content-Length body read and dropped. */
  public static String readResponse(Socket s) throws IOException {
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
   * True when the server has closed {@code s} within {@code millis}; false when it is still open
   * then (for connections on which no answer is due, so a read returns only when they close).
   */
  public static boolean closedByServer(Socket s, int millis) throws IOException {
    s.setSoTimeout(millis);
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
