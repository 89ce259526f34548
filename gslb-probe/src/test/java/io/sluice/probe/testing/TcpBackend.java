package io.sluice.probe.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A real TCP listener on loopback that accepts and closes connections; can be closed and reopened.
 */
public final class TcpBackend implements AutoCloseable {
  private ServerSocket socket;
  private Thread acceptor;
  private int port;

  public TcpBackend() {
    open(0);
  }

  private void open(int wanted) {
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), wanted), 128);
      socket = s;
      port = s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ServerSocket s = socket;
    acceptor =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                  c.getInputStream().available();
                } catch (IOException e) {
                  return;
                }
              }
            },
            "tcp-backend-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return port;
  }

  /** Closes the port: connections are refused. */
  public synchronized void stop() {
    if (socket != null) {
      try {
        socket.close();
        // The accepting thread holds the listening socket open in the kernel until it wakes.
        acceptor.join(5000);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      socket = null;
    }
  }

  /** Opens the same port again. */
  public synchronized void restart() {
    if (socket == null) {
      open(port);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
