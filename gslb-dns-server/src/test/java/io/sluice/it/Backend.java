package io.sluice.it;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * A real HTTP backend on a loopback address answering {@code GET /ready} with 200, that can be
 * killed (its socket closed: connections are refused) and started again on the same port, and can
 * answer 503 to the probes of chosen local processes only (one node's vantage sees it down).
 */
final class Backend implements AutoCloseable {
  private final String address;
  private int port;
  private HttpServer server;
  private volatile Set<Long> refused = Set.of();

  Backend(String address) throws IOException {
    this(address, 0);
  }

  /** A backend on {@code address} and {@code port} (0: any free port). */
  Backend(String address, int port) throws IOException {
    this.address = address;
    this.port = port;
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
          boolean refuse =
              PeerProcess.ownedByAnyOf(
                  exchange.getRemoteAddress().getPort(),
                  exchange.getLocalAddress().getPort(),
                  refused);
          byte[] body = (refuse ? "down" : "ready").getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(refuse ? 503 : 200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    s.start();
    port = s.getAddress().getPort();
    server = s;
  }

  /** Answers 503 to the probes of the processes {@code pids} (none: everyone gets 200). */
  void refuse(Set<Long> pids) {
    refused = Set.copyOf(pids);
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
