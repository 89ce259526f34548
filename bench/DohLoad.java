import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A DNS over HTTPS load client for docs/benchmark.md, JDK only: {@code java bench/DohLoad.java
 * URL SECONDS CONCURRENCY NAME [get|post] [http2|http1]} sends DoH queries for NAME/A to URL (such
 * as https://127.0.0.1:5443/dns-query) with CONCURRENCY requests outstanding, for SECONDS, and
 * prints the queries answered with 200, the time, the errors and the rate. HTTP/2 multiplexes every request
 * on one connection, as a resolver does. The server's certificate is not checked (a benchmark of a
 * self-signed local listener).
 */
public final class DohLoad {
  public static void main(String[] args) throws Exception {
    URI uri = URI.create(args[0]);
    long seconds = Long.parseLong(args[1]);
    int concurrency = Integer.parseInt(args[2]);
    byte[] query = query(args[3]);
    boolean get = args.length > 4 && args[4].equals("get");
    HttpClient.Version version =
        args.length > 5 && args[5].equals("http1")
            ? HttpClient.Version.HTTP_1_1
            : HttpClient.Version.HTTP_2;
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
    HttpClient http = HttpClient.newBuilder().sslContext(ssl).version(version).build();
    HttpRequest request =
        get
            ? HttpRequest.newBuilder(
                    URI.create(
                        uri + "?dns=" + Base64.getUrlEncoder().withoutPadding().encodeToString(query)))
                .GET()
                .build()
            : HttpRequest.newBuilder(uri)
                .header("content-type", "application/dns-message")
                .POST(HttpRequest.BodyPublishers.ofByteArray(query))
                .build();
    // Warm up the connection (and the JIT of both ends) before counting.
    http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    AtomicLong ok = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    Semaphore window = new Semaphore(concurrency);
    long start = System.nanoTime();
    long end = start + Duration.ofSeconds(seconds).toNanos();
    while (System.nanoTime() < end) {
      window.acquire();
      http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
          .whenComplete(
              (r, e) -> {
                if (e == null && r.statusCode() == 200) {
                  ok.incrementAndGet();
                } else {
                  errors.incrementAndGet();
                }
                window.release();
              });
    }
    window.acquire(concurrency);
    double elapsed = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "queries %d seconds %.2f errors %d qps %.0f%n",
        ok.get(), elapsed, errors.get(), ok.get() / elapsed);
  }

  /** A DNS query for NAME/A, ID 0 (RFC 8484 §4.1), RD clear. */
  private static byte[] query(String name) {
    ByteBuffer b = ByteBuffer.allocate(512);
    b.putShort((short) 0).putShort((short) 0).putShort((short) 1).putShort((short) 0);
    b.putShort((short) 0).putShort((short) 0);
    for (String label : name.split("\\.")) {
      if (!label.isEmpty()) {
        byte[] l = label.getBytes(StandardCharsets.US_ASCII);
        b.put((byte) l.length).put(l);
      }
    }
    b.put((byte) 0).putShort((short) 1).putShort((short) 1);
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
