package io.sluice.dns.https;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HttpsCloseReason;
import io.sluice.core.testing.RawHttp;
import io.sluice.server.app.SluiceNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slow-client defences of the DoH/HTTPDNS listener over real TLS sockets: the per-source cap
 * ({@code dns.https.maxConnectionsPerSource}) closes one source's excess connections while another
 * source is served, and the request deadline ({@code dns.https.requestTimeout}) closes a connection
 * whose HTTP/1.1 request or HTTP/2 stream is trickled in although it never goes idle, while a
 * keep-alive connection quiet between two whole requests is left to the idle timeout.
 */
class HttpsSlowClientTest {
  private static final int PER_SOURCE = 5;
  private static final String RESOLVE = "/resolve?name=www.example.test";

  @TempDir static Path dir;
  private static final Closes closes = new Closes();
  private static SluiceNode node;
  private static SSLContext tls;
  private static DohClient doh;

  /** Counts the connections the listener closes itself, by reason. */
  static final class Closes implements GslbMetrics {
    final Map<HttpsCloseReason, LongAdder> byReason = new EnumMap<>(HttpsCloseReason.class);

    Closes() {
      for (HttpsCloseReason r : HttpsCloseReason.values()) {
        byReason.put(r, new LongAdder());
      }
    }

    @Override
    public void httpsClosed(HttpsCloseReason reason) {
      byReason.get(reason).increment();
    }

    long count(HttpsCloseReason reason) {
      return byReason.get(reason).sum();
    }
  }

  @BeforeAll
  static void start() throws Exception {
    String yaml =
        """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          https:
            listen: [127.0.0.1]
            port: 0
            maxConnections: 50
            maxConnectionsPerSource: %d
            requestTimeout: 1s
            idleTimeout: 10s
        stateDir: state
        """
                .formatted(PER_SOURCE)
            + HttpsCertificateTest.ZONE;
    node =
        SluiceNode.start(
            ConfigLoader.parse(yaml, "test.yaml", dir),
            "test.yaml",
            AllEndpointsPlanner::new,
            closes);
    Path cert = dir.resolve("state/https.crt");
    tls = DohClient.trusting(cert);
    doh = new DohClient(node.httpsPort(), cert, HttpClient.Version.HTTP_2);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void oneSourceBeyondItsCapIsClosedWhileAnotherIsServed() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < PER_SOURCE; i++) {
        held.add(plain("127.0.0.2"));
      }
      long before = closes.count(HttpsCloseReason.SOURCE_LIMIT);
      // One event loop admits connections in the order they came: the held ones first.
      try (Socket excess = plain("127.0.0.2")) {
        assertTrue(RawHttp.closedByServer(excess, 5000), "the connection over the source's cap");
      }
      assertEquals(before + 1, closes.count(HttpsCloseReason.SOURCE_LIMIT));
      for (Socket s : held) {
        assertFalse(RawHttp.closedByServer(s, 100), "the connections within the cap stay");
      }
      assertEquals(200, doh.get(RESOLVE).statusCode(), "another source is served");
      // A slot given back is a slot to take: the source's count went down with the close.
      held.remove(0).close();
      boolean admitted = false;
      for (int attempt = 0; attempt < 50 && !admitted; attempt++) {
        try (Socket again = plain("127.0.0.2")) {
          admitted = !RawHttp.closedByServer(again, 100);
        }
      }
      assertTrue(admitted, "a new connection of the source once one of its own closed");
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void anHttp1RequestTrickledInIsClosedAtTheDeadlineWhileOthersAreAnswered() throws Exception {
    long timedOut = closes.count(HttpsCloseReason.REQUEST_TIMEOUT);
    byte[] request =
        ("GET " + RESOLVE + " HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    try (SSLSocket slow = tls("http/1.1")) {
      Watcher watcher = Watcher.start(slow);
      int sent = trickle(watcher, i -> slow.getOutputStream().write(request[i]), request.length);
      assertTrue(watcher.closed(), "closed after " + sent + " of " + request.length + " bytes");
      assertTrue(sent > 2, "bytes kept coming: the connection was never idle");
    }
    // Closed by the deadline, not for idleness: a byte came every 300 ms, idleTimeout is 10 s.
    assertEquals(timedOut + 1, closes.count(HttpsCloseReason.REQUEST_TIMEOUT));
  }

  @Test
  void anHttp2StreamThatNeverEndsIsClosedAtTheDeadlineButPingsAloneAreNot() throws Exception {
    long timedOut = closes.count(HttpsCloseReason.REQUEST_TIMEOUT);
    try (SSLSocket slow = tls("h2");
        SSLSocket pinger = tls("h2");
        SSLSocket bytewise = tls("h2");
        SSLSocket continued = tls("h2")) {
      assertEquals("h2", slow.getApplicationProtocol());
      OutputStream out = slow.getOutputStream();
      out.write(preface());
      DefaultHttp2Headers headers = new DefaultHttp2Headers();
      headers
          .method("POST")
          .path("/dns-query")
          .scheme("https")
          .authority("localhost")
          .set("content-type", "application/dns-message");
      out.write(frame(0x1, 0x4, 1, hpack(headers))); // HEADERS, END_HEADERS, no END_STREAM
      out.flush();
      // A GET's HEADERS frame (END_STREAM) trickled a byte at a time: the frame never completes.
      byte[] get = frame(0x1, 0x5, 1, hpack(headers.method("GET")));
      OutputStream bytes = bytewise.getOutputStream();
      bytes.write(preface());
      bytes.flush();
      Watcher byteWatch = Watcher.start(bytewise);
      // A header block whose frames are each whole but never ends: HEADERS, then a CONTINUATION
      // of one byte at a time, none with END_HEADERS.
      byte[] block = hpack(headers);
      OutputStream cont = continued.getOutputStream();
      cont.write(preface());
      cont.write(frame(0x1, 0x1, 1, new byte[] {block[0]})); // HEADERS, END_STREAM only
      cont.flush();
      Watcher contWatch = Watcher.start(continued);
      OutputStream ping = pinger.getOutputStream();
      ping.write(preface());
      ping.flush();
      Watcher slowWatch = Watcher.start(slow);
      Watcher pingWatch = Watcher.start(pinger);
      int sent =
          trickle(
              slowWatch,
              i -> {
                out.write(frame(0x0, 0, 1, new byte[] {(byte) i})); // DATA, never END_STREAM
                ping.write(frame(0x6, 0, 0, new byte[8])); // PING
                try {
                  bytes.write(get[i]);
                  cont.write(frame(0x9, 0, 1, new byte[] {block[1 + i % (block.length - 1)]}));
                } catch (IOException closedAlready) {
                  // Checked below.
                }
              },
              get.length);
      assertTrue(slowWatch.closed(), "closed after " + sent + " DATA frames");
      byteWatch.await(2000);
      assertTrue(byteWatch.closed(), "a frame trickled in is closed too");
      contWatch.await(2000);
      assertTrue(contWatch.closed(), "and so is a header block trickled in whole frames");
      assertTrue(sent > 2, "frames kept coming: the connection was never idle");
      // As long again: PINGs alone would have run past the deadline by now if they started it.
      for (int i = 0; i < sent; i++) {
        ping.write(frame(0x6, 0, 0, new byte[8]));
        pingWatch.await(300);
      }
      assertFalse(pingWatch.closed(), "a connection without a stream is left to the idle timeout");
    }
    assertEquals(timedOut + 3, closes.count(HttpsCloseReason.REQUEST_TIMEOUT));
  }

  @Test
  void aKeepAliveConnectionQuietBetweenWholeRequestsOutlastsTheDeadline() throws Exception {
    long timedOut = closes.count(HttpsCloseReason.REQUEST_TIMEOUT);
    byte[] request =
        ("GET " + RESOLVE + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    try (SSLSocket s = tls("http/1.1")) {
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      assertTrue(RawHttp.readResponse(s).startsWith("HTTP/1.1 200 "));
      assertEquals(200, doh.get(RESOLVE).statusCode());
      // Longer than requestTimeout (1s), well within idleTimeout (10s).
      Thread.sleep(1500);
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      assertTrue(
          RawHttp.readResponse(s).startsWith("HTTP/1.1 200 "), "the same connection answers");
      assertEquals(200, doh.get(RESOLVE).statusCode(), "and so does an HTTP/2 one");
    }
    assertEquals(timedOut, closes.count(HttpsCloseReason.REQUEST_TIMEOUT));
  }

  /** One step of a trickle: sends its {@code i}th piece. */
  private interface Step {
    void send(int i) throws IOException;
  }

  /**
   * Sends up to {@code pieces} pieces 300 ms apart until the server closes the connection, asking
   * the listener for a normal answer in between; bounded to 5 s. Returns the pieces sent.
   */
  private static int trickle(Watcher watcher, Step step, int pieces) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    int sent = 0;
    while (sent < pieces && System.nanoTime() < end && !watcher.closed()) {
      try {
        step.send(sent);
      } catch (IOException closedMeanwhile) {
        break;
      }
      sent++;
      assertEquals(200, doh.get(RESOLVE).statusCode(), "a normal client is answered meanwhile");
      watcher.await(300);
    }
    watcher.await(2000);
    return sent;
  }

  /** Reads a socket until the server closes it. */
  private static final class Watcher {
    private final CountDownLatch closed = new CountDownLatch(1);

    static Watcher start(Socket s) {
      Watcher w = new Watcher();
      Thread t =
          new Thread(
              () -> {
                try (InputStream in = s.getInputStream()) {
                  byte[] buf = new byte[4096];
                  while (in.read(buf) >= 0) {
                    // Whatever the server sends (SETTINGS, PING acks, WINDOW_UPDATE) is dropped.
                  }
                } catch (IOException e) {
                  // Reset, or closed by the test: closed either way.
                }
                w.closed.countDown();
              },
              "https-watcher");
      t.setDaemon(true);
      t.start();
      return w;
    }

    boolean closed() {
      return closed.getCount() == 0;
    }

    void await(long millis) throws InterruptedException {
      closed.await(millis, TimeUnit.MILLISECONDS);
    }
  }

  private static Socket plain(String from) throws IOException {
    return new Socket(
        InetAddress.getByName("127.0.0.1"), node.httpsPort(), InetAddress.getByName(from), 0);
  }

  /** A TLS connection from 127.0.0.1 offering only {@code protocol} in ALPN, handshake done. */
  private static SSLSocket tls(String protocol) throws IOException {
    SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket();
    s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), node.httpsPort()), 5000);
    SSLParameters p = s.getSSLParameters();
    p.setApplicationProtocols(new String[] {protocol});
    s.setSSLParameters(p);
    s.setSoTimeout(10_000);
    s.startHandshake();
    return s;
  }

  /** The client connection preface and an empty SETTINGS frame. */
  private static byte[] preface() {
    byte[] magic = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    byte[] settings = frame(0x4, 0, 0, new byte[0]);
    byte[] out = new byte[magic.length + settings.length];
    System.arraycopy(magic, 0, out, 0, magic.length);
    System.arraycopy(settings, 0, out, magic.length, settings.length);
    return out;
  }

  private static byte[] frame(int type, int flags, int stream, byte[] payload) {
    byte[] f = new byte[9 + payload.length];
    f[0] = (byte) (payload.length >>> 16);
    f[1] = (byte) (payload.length >>> 8);
    f[2] = (byte) payload.length;
    f[3] = (byte) type;
    f[4] = (byte) flags;
    f[5] = (byte) (stream >>> 24);
    f[6] = (byte) (stream >>> 16);
    f[7] = (byte) (stream >>> 8);
    f[8] = (byte) stream;
    System.arraycopy(payload, 0, f, 9, payload.length);
    return f;
  }

  private static byte[] hpack(Http2Headers headers) throws Http2Exception {
    ByteBuf buf = Unpooled.buffer();
    try {
      new DefaultHttp2HeadersEncoder().encodeHeaders(1, headers, buf);
      byte[] out = new byte[buf.readableBytes()];
      buf.readBytes(out);
      return out;
    } finally {
      buf.release();
    }
  }
}
