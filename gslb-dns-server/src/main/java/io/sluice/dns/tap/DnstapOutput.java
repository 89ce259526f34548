package io.sluice.dns.tap;

import io.sluice.core.config.ObservabilityConfig;
import io.sluice.core.sample.SampleRing;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * dnstap output of every query and response: the event loops hand each one to a bounded lock-free
 * ring ({@link SampleRing}: a full ring drops it and counts it, the event loop never waits), and
 * the {@code sluice-dnstap} thread encodes the AUTH_QUERY and AUTH_RESPONSE messages and writes
 * them as Frame Streams to a file and/or a Unix socket (reconnected every second while the reader
 * is away; messages meanwhile are dropped and counted).
 */
public final class DnstapOutput implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DnstapOutput.class);
  private static final long RECONNECT_NANOS = 1_000_000_000L;

  /** One query as the responder saw it. */
  private record Event(
      byte[] query, byte[] response, byte[] client, int port, boolean tcp, long millis) {}

  private final SampleRing<Event> ring;
  private final DnstapEncoder encoder;
  private final Path file;
  private final Path socket;
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong unsent = new AtomicLong();
  private final AtomicLong handled = new AtomicLong();
  private final Thread thread;
  private volatile boolean closing;
  // Owned by the dnstap thread.
  private OutputStream fileOut;
  private SocketChannel channel;
  private OutputStream socketOut;
  private long nextConnect;

  private DnstapOutput(ObservabilityConfig.Dnstap settings, Path stateDir) {
    this.ring = new SampleRing<>(settings.queue());
    this.encoder =
        new DnstapEncoder(
            settings.identity() == null
                ? null
                : settings.identity().getBytes(StandardCharsets.UTF_8),
            "sluice".getBytes(StandardCharsets.US_ASCII));
    this.file = settings.file() == null ? null : stateDir.resolve(settings.file());
    this.socket = settings.socket() == null ? null : stateDir.resolve(settings.socket());
    this.thread = new Thread(this::run, "sluice-dnstap");
    thread.setDaemon(true);
  }

  /**
   * Opens the output {@code settings} describe (relative paths against {@code stateDir}): the file
   * is created (truncated) now; the socket is connected by the writer thread.
   */
  public static DnstapOutput open(ObservabilityConfig.Dnstap settings, Path stateDir)
      throws IOException {
    DnstapOutput out = new DnstapOutput(settings, stateDir);
    if (out.file != null) {
      Path parent = out.file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      out.fileOut = new BufferedOutputStream(Files.newOutputStream(out.file), 1 << 16);
      out.fileOut.write(FrameStreams.control(FrameStreams.START));
    }
    out.thread.start();
    return out;
  }

  /**
   * On the event loop: hands the query ({@code len} bytes of {@code in}, copied) and its response
   * (null: dropped) over, or drops them (counted) when the writer is behind; never blocks.
   */
  public void offer(byte[] in, int len, byte[] response, InetAddress client, boolean tcp) {
    ring.offer(
        new Event(
            Arrays.copyOf(in, len),
            response,
            client.getAddress(),
            0,
            tcp,
            System.currentTimeMillis()));
  }

  /** Messages dropped: the queue was full, or no reader was connected to the socket. */
  public long dropped() {
    return ring.dropped() + unsent.get();
  }

  /** dnstap messages written. */
  public long written() {
    return written.get();
  }

  /** Waits until every query offered so far was written or dropped (tests, shutdown). */
  public void awaitIdle() {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (handled.get() + ring.dropped() < ring.offered() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(1_000_000);
    }
  }

  @Override
  public void close() {
    awaitIdle();
    closing = true;
    // Not an interrupt: that would close the socket channel before STOP is sent.
    LockSupport.unpark(thread);
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    try {
      while (!closing) {
        int n = ring.drain(this::write, 1024);
        if (n == 0) {
          flush();
          if (socket != null && channel == null) {
            connect();
          }
          LockSupport.parkNanos(5_000_000);
        }
      }
    } finally {
      ring.drain(this::write, Integer.MAX_VALUE);
      finish();
    }
  }

  private void write(Event e) {
    try {
      frame(
          encoder.encode(
              DnstapEncoder.AUTH_QUERY,
              e.client(),
              e.port(),
              e.tcp(),
              e.millis(),
              e.query(),
              0,
              null));
      if (e.response() != null) {
        frame(
            encoder.encode(
                DnstapEncoder.AUTH_RESPONSE,
                e.client(),
                e.port(),
                e.tcp(),
                e.millis(),
                null,
                System.currentTimeMillis(),
                e.response()));
      }
    } finally {
      handled.incrementAndGet();
    }
  }

  private void frame(byte[] payload) {
    byte[] length = {
      (byte) (payload.length >>> 24),
      (byte) (payload.length >>> 16),
      (byte) (payload.length >>> 8),
      (byte) payload.length
    };
    if (fileOut != null) {
      try {
        fileOut.write(length);
        fileOut.write(payload);
      } catch (IOException x) {
        LOG.warn("dnstap file {} cannot be written, closing it: {}", file, x.toString());
        closeQuietly(fileOut);
        fileOut = null;
      }
    }
    if (socket != null) {
      if (socketOut == null) {
        unsent.incrementAndGet();
      } else {
        try {
          socketOut.write(length);
          socketOut.write(payload);
        } catch (IOException x) {
          LOG.warn("dnstap reader on {} went away: {}", socket, x.toString());
          disconnect();
          unsent.incrementAndGet();
        }
      }
    }
    written.incrementAndGet();
  }

  /** Connects to the reader with the bidirectional handshake: READY, ACCEPT, START. */
  private void connect() {
    long now = System.nanoTime();
    if (now < nextConnect) {
      return;
    }
    nextConnect = now + RECONNECT_NANOS;
    try {
      SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        c.connect(UnixDomainSocketAddress.of(socket));
        OutputStream out = new BufferedOutputStream(Channels.newOutputStream(c), 1 << 16);
        out.write(FrameStreams.control(FrameStreams.READY));
        out.flush();
        int answer = FrameStreams.readControl(new DataInputStream(Channels.newInputStream(c)));
        if (answer != FrameStreams.ACCEPT) {
          throw new IOException("the reader answered control frame " + answer + ", not ACCEPT");
        }
        out.write(FrameStreams.control(FrameStreams.START));
        out.flush();
        channel = c;
        socketOut = out;
        LOG.info("dnstap connected to {}", socket);
      } catch (IOException e) {
        c.close();
        throw e;
      }
    } catch (IOException e) {
      LOG.debug("dnstap reader on {} not reachable: {}", socket, e.toString());
    }
  }

  private void flush() {
    try {
      if (fileOut != null) {
        fileOut.flush();
      }
      if (socketOut != null) {
        socketOut.flush();
      }
    } catch (IOException e) {
      if (socketOut != null) {
        disconnect();
      }
    }
  }

  private void disconnect() {
    closeQuietly(channel);
    channel = null;
    socketOut = null;
  }

  /** Ends both streams with STOP (and waits for the socket reader's FINISH, briefly). */
  private void finish() {
    if (fileOut != null) {
      try {
        fileOut.write(FrameStreams.control(FrameStreams.STOP));
        fileOut.close();
      } catch (IOException e) {
        LOG.warn("dnstap file {} not closed cleanly: {}", file, e.toString());
      }
    }
    if (socketOut != null) {
      try {
        socketOut.write(FrameStreams.control(FrameStreams.STOP));
        socketOut.flush();
      } catch (IOException e) {
        LOG.debug("dnstap reader gone before STOP: {}", e.toString());
      }
      disconnect();
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (Exception e) {
      LOG.debug("close failed: {}", e.toString());
    }
  }
}
