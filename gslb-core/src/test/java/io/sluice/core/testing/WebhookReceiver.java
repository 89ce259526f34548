package io.sluice.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A real HTTP receiver of webhooks on loopback: every request is recorded with its headers and
 * body, and answered as {@link #behave} says (a status, or a hang until the sender gives up). It
 * verifies signatures the way docs/notifications.md tells receivers to.
 */
public final class WebhookReceiver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request as received, with the status it was answered with (-1: hung up on). */
  public record Request(
      String id,
      String type,
      String signature,
      String attempt,
      JsonNode body,
      byte[] raw,
      int status,
      java.time.Instant at) {}

  /** How one request is answered: a status, or {@link #HANG} to never answer. */
  public static final int HANG = -1;

  private final HttpServer server;
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<Request> requests = new ArrayList<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile Function<JsonNode, Integer> behave = body -> 200;

  public WebhookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(pool);
    server.createContext(
        "/hook",
        ex -> {
          byte[] raw = ex.getRequestBody().readAllBytes();
          JsonNode body = JSON.readTree(raw);
          int status = behave.apply(body);
          synchronized (requests) {
            requests.add(
                new Request(
                    ex.getRequestHeaders().getFirst("Sluice-Event-Id"),
                    ex.getRequestHeaders().getFirst("Sluice-Event-Type"),
                    ex.getRequestHeaders().getFirst("Sluice-Signature"),
                    ex.getRequestHeaders().getFirst("Sluice-Delivery-Attempt"),
                    body,
                    raw,
                    status,
                    java.time.Instant.now()));
            requests.notifyAll();
          }
          if (status == HANG) {
            try {
              released.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            ex.close();
            return;
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    server.start();
  }

  /** The URL to configure. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  /** Answers the next requests by {@code how} (from the body: a status or {@link #HANG}). */
  public void behave(Function<JsonNode, Integer> how) {
    this.behave = how;
  }

  /** Every request so far, in arrival order. */
  public List<Request> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** The requests answered 2xx, in arrival order. */
  public List<Request> accepted() {
    return requests().stream().filter(r -> r.status() / 100 == 2).toList();
  }

  /** Waits (bounded, generously) until {@code n} requests arrived; the requests then. */
  public List<Request> awaitRequests(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    synchronized (requests) {
      while (requests.size() < n && System.nanoTime() < deadline) {
        requests.wait(100);
      }
      return List.copyOf(requests);
    }
  }

  /**
   * Whether {@code r} carries a valid signature under {@code secret}, no older than {@code
   * maxAgeSeconds} at {@code nowSeconds}: HMAC-SHA256 over "{t}.{raw body}", compared in constant
   * time.
   */
  public static boolean verified(Request r, byte[] secret, long nowSeconds, long maxAgeSeconds)
      throws Exception {
    if (r.signature() == null) {
      return false;
    }
    long t = -1;
    String v1 = null;
    for (String part : r.signature().split(",")) {
      if (part.startsWith("t=")) {
        t = Long.parseLong(part.substring(2));
      } else if (part.startsWith("v1=")) {
        v1 = part.substring(3);
      }
    }
    if (v1 == null || Math.abs(nowSeconds - t) > maxAgeSeconds) {
      return false;
    }
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
    mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
    byte[] expected = mac.doFinal(r.raw());
    return MessageDigest.isEqual(expected, HexFormat.of().parseHex(v1));
  }

  @Override
  public void close() {
    released.countDown();
    server.stop(0);
    pool.shutdownNow();
  }
}
