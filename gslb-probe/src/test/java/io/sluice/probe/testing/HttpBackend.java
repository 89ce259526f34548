package io.sluice.probe.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP backend on loopback whose answer a test changes at will; it can be stopped and
 * started again on the same port.
 */
public final class HttpBackend implements AutoCloseable {
  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private final AtomicInteger requests = new AtomicInteger();
  private volatile int status = 200;
  private volatile String body = "{\"status\":\"ready\",\"db\":\"ok\"}";
  private volatile long delayMillis;
  private volatile String lastHost;
  private volatile Random faults;
  private volatile double failRatio;
  private HttpServer server;
  private int port;

  public HttpBackend() {
    start(0);
  }

  private void start(int wanted) {
    try {
      server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), wanted), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(pool);
    server.createContext(
        "/",
        ex -> {
          requests.incrementAndGet();
          lastHost = ex.getRequestHeaders().getFirst("Host");
          Random f = faults;
          if (f != null) {
            boolean fail;
            synchronized (f) {
              fail = f.nextDouble() < failRatio;
            }
            if (fail) {
              ex.sendResponseHeaders(503, -1);
              ex.close();
              return;
            }
          }
          long d = delayMillis;
          if (d > 0) {
            try {
              Thread.sleep(d);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          byte[] b = body.getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(status, b.length);
          try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
          }
        });
    server.start();
    port = server.getAddress().getPort();
  }

  public int port() {
    return port;
  }

  public void answer(int status, String body) {
    this.status = status;
    this.body = body;
  }

  /** Fails {@code ratio} of requests with 503, drawn from a generator seeded with {@code seed}. */
  public void failRandomly(double ratio, long seed) {
    this.failRatio = ratio;
    this.faults = new Random(seed);
  }

  public void delay(long millis) {
    this.delayMillis = millis;
  }

  public int requests() {
    return requests.get();
  }

  public String lastHost() {
    return lastHost;
  }

  /** Stops listening: connections are refused. */
  public synchronized void stop() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }

  /** Listens again on the same port. */
  public synchronized void restart() {
    if (server == null) {
      start(port);
    }
  }

  @Override
  public void close() {
    stop();
    pool.shutdownNow();
  }
}
