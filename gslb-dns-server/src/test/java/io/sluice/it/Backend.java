package io.sluice.it;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A real HTTP backend on a loopback address answering {@code GET /ready} with 200, that can be
 * killed (its socket closed: connections are refused) and started again on the same port.
 */
final class Backend implements AutoCloseable {
  private final String address;
  private int port;
  private HttpServer server;

  Backend(String address) throws IOException {
    this.address = address;
    start();
  }

  int port() {
    return port;
  }

  synchronized void start() throws IOException {
    if (server != null) {
      return;
    }
    HttpServer s = HttpServer.create(new InetSocketAddress(address, port), 16);
    s.createContext(
        "/ready",
        exchange -> {
          byte[] body = "ready".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    s.start();
    port = s.getAddress().getPort();
    server = s;
  }

  synchronized void kill() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }

  @Override
  public void close() {
    kill();
  }
}
