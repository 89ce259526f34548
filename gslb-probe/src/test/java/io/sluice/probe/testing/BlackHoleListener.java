package io.sluice.probe.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port that answers nothing: a listener that never accepts, with its backlog of 1 filled
 * by idle connections, so the kernel drops further connection attempts and clients time out as
 * behind a black hole instead of being refused.
 */
public final class BlackHoleListener implements AutoCloseable {
  private static final int MAX_FILLERS = 16;

  private final ServerSocket socket;
  private final List<Socket> fillers = new ArrayList<>();

  public BlackHoleListener() {
    try {
      socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      InetSocketAddress at = new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort());
      for (int i = 0; i < MAX_FILLERS; i++) {
        Socket s = new Socket();
        fillers.add(s);
        try {
          s.connect(at, 300);
        } catch (SocketTimeoutException full) {
          return;
        }
      }
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(e);
    }
    close();
    throw new IllegalStateException("the backlog never filled: connections are still accepted");
  }

  public int port() {
    return socket.getLocalPort();
  }

  @Override
  public void close() {
    for (Socket s : fillers) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    try {
      if (socket != null) {
        socket.close();
      }
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
