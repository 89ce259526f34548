package io.sluice.core.testing;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A slow-loris attack over real loopback sockets: opens many connections, sends each the start of
 * an HTTP request, then trickles one more header line to every connection at a fixed interval, so
 * that no request is ever completed and a read timeout that restarts with every byte never fires.
 */
public final class SlowLoris implements AutoCloseable {
  private static final byte[] HEADER = "X-Slow: 1\r\n".getBytes(StandardCharsets.US_ASCII);

  private final List<Socket> sockets = new ArrayList<>();
  private final Thread trickler;
  private volatile boolean running = true;

  private SlowLoris(List<Socket> opened, Duration every) {
    sockets.addAll(opened);
    trickler = new Thread(() -> trickle(every.toMillis()), "slow-loris");
    trickler.setDaemon(true);
    trickler.start();
  }

  /** Opens {@code count} connections to 127.0.0.1:{@code port} and starts trickling. */
  public static SlowLoris start(int port, int count, String requestLine, Duration every)
      throws IOException {
    List<Socket> opened = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        Socket s = new Socket("127.0.0.1", port);
        opened.add(s);
        s.getOutputStream()
            .write((requestLine + "\r\nHost: x\r\n").getBytes(StandardCharsets.US_ASCII));
      }
    } catch (IOException e) {
      for (Socket s : opened) {
        s.close();
      }
      throw e;
    }
    return new SlowLoris(opened, every);
  }

  /**
   * How many connections the server has not closed, waiting for each up to {@code patience} (a
   * bound for a stuck test, not a measurement).
   */
  public int stillOpenAfter(Duration patience) throws IOException {
    int open = 0;
    for (Socket s : sockets) {
      s.setSoTimeout((int) patience.toMillis());
      try {
        if (s.getInputStream().read() != -1) {
          open++; // the server answered an unfinished request: it is still being served
        }
      } catch (SocketTimeoutException e) {
        open++;
      } catch (IOException reset) {
        // closed by the server
      }
    }
    return open;
  }

  private void trickle(long everyMillis) {
    while (running) {
      for (Socket s : sockets) {
        try {
          s.getOutputStream().write(HEADER);
        } catch (IOException closedByTheServer) {
          // expected once the server gives up on this connection
        }
      }
      try {
        Thread.sleep(everyMillis);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    running = false;
    trickler.join();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
