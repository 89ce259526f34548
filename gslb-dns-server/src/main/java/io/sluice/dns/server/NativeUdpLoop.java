package io.sluice.dns.server;

import io.sluice.dns.response.QueryClock;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one UDP socket on a thread of its own through {@link NativeUdp}: reads what the socket
 * holds (up to {@link #SLOTS} datagrams) in one call, answers each query on the spot and sends the
 * replies in one call. Against Netty's loop this saves, per batch, the epoll wake-up, a socket
 * option read per receive call, a packet and address object per query and the pipeline; the
 * overload rules stay the same: no queue of its own, and a reply the kernel's send buffer refuses
 * is dropped and counted ({@link UdpQueues}).
 */
final class NativeUdpLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(NativeUdpLoop.class);

  /** Datagrams per batch: about what arrives at a busy socket while one batch is answered. */
  static final int SLOTS = 32;

  /** The largest query read whole; a longer datagram is cut there, as Netty's reader cuts it. */
  static final int IN_BYTES = DnsServer.MAX_DATAGRAM;

  /** Reply room per slot; replies are packed, so this bounds a batch, not each reply's page. */
  static final int OUT_BYTES = 65536;

  /** How long a receive waits in poll on an empty socket before it checks for a stop. */
  private static final int WAIT_MILLIS = 1000;

  /**
   * How long a receive waits inside recvmmsg on an empty socket before it goes on waiting in poll,
   * which a stop wakes: a stop cannot wake the recvmmsg, so it takes up to this long, and an idle
   * loop makes one more system call a second for it.
   */
  static final int KERNEL_WAIT_MILLIS = 20;

  private static final long ERROR_LOG_NANOS = 10_000_000_000L;

  private static final int EBADF = 9;
  private static final int ENOTSOCK = 88;

  private final int fd;
  private final Responder responder;
  private final UdpQueues queues;
  private final String name;
  private final long batch;
  private final ByteBuffer mem;
  private final int outArea;
  private final int metaArea;
  private volatile boolean running = true;
  private Thread thread;

  /** The query being answered, copied out of the batch: the responder reads a heap array. */
  private final byte[] in = new byte[IN_BYTES];

  /** The request-duration clock handed from one answer of a batch to the next. */
  private final QueryClock clock = new QueryClock();

  /** The last client's address, reused while the next query comes from the same one. */
  private final byte[] lastBytes = new byte[16];

  private int lastFamily;

  /** When a failure was last logged; one line per 10 s at most, however often it repeats. */
  private long lastErrorLogged = System.nanoTime() - ERROR_LOG_NANOS;

  private InetAddress lastClient;

  /** Whether the socket was offered to another reader; it then stays non-blocking. */
  private boolean shared;

  private NativeUdpLoop(int fd, Responder responder, UdpQueues queues, String name, long batch) {
    this.fd = fd;
    this.responder = responder;
    this.queues = queues;
    this.name = name;
    this.batch = batch;
    this.mem = NativeUdp.memory(batch).order(ByteOrder.nativeOrder());
    this.outArea = SLOTS * IN_BYTES;
    this.metaArea = outArea + SLOTS * OUT_BYTES;
  }

  /** Starts answering the socket {@code fd} (named {@code name} in logs) on a new thread. */
  static NativeUdpLoop start(
      int fd, Responder responder, UdpQueues queues, String name, ThreadFactory threads) {
    long batch = NativeUdp.create(SLOTS, IN_BYTES, OUT_BYTES);
    if (batch == 0) {
      throw new OutOfMemoryError("no native memory for a UDP batch");
    }
    NativeUdpLoop loop = new NativeUdpLoop(fd, responder, queues, name, batch);
    loop.waitInKernel();
    loop.thread = threads.newThread(loop);
    loop.thread.start();
    return loop;
  }

  /**
   * Lets the loop wait for datagrams inside recvmmsg, as gdnsd does: one system call per wake-up
   * where waiting in poll takes three (a read finding nothing, the poll, the read): a quarter of
   * the CPU per query at 20,000 queries a second on the benchmark machine. Where that fails the
   * loop waits in poll, as before.
   */
  private synchronized void waitInKernel() {
    if (shared) {
      return;
    }
    int r = NativeUdp.waitInKernel(fd, KERNEL_WAIT_MILLIS);
    if (r < 0) {
      log.info(
          "UDP socket {} cannot be read blocking (errno {}); its loop waits in poll", name, -r);
    }
  }

  /**
   * Makes the socket non-blocking again before it is handed to another process, whose reader may be
   * Netty's, which needs O_NONBLOCK: that flag belongs to the open file both processes share, and
   * takes the don't-fragment bit off its replies. This loop reads on, waiting in poll, until it is
   * stopped.
   */
  synchronized void share() {
    shared = true;
    int r = NativeUdp.nonBlocking(fd);
    if (r < 0) {
      log.warn("cannot make UDP socket {} non-blocking for a hand-over (errno {})", name, -r);
    }
    // The next reader may be Netty's, which cannot resend a reply too large for don't-fragment;
    // the next process sets the bit again for a native loop. This loop still resends on its own.
    NativeUdp.dontFragment(fd, false);
  }

  /**
   * Stops reading and waits for the thread to end, so the socket can be closed with no read of it
   * in flight (a descriptor number closed under a read could be reused by another file).
   */
  void stop() {
    running = false;
    NativeUdp.wake(batch);
    boolean interrupted = false;
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (thread.isAlive() && System.nanoTime() < deadline) {
      try {
        thread.join(100);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      // Freeing the batch under a thread still in it would crash the process; leave it.
      log.warn("UDP loop on {} did not stop within 5 s", name);
    } else {
      NativeUdp.destroy(batch);
    }
  }

  @Override
  public void run() {
    while (running) {
      int n = NativeUdp.receive(batch, fd, WAIT_MILLIS);
      if (n < 0) {
        if (-n == EBADF || -n == ENOTSOCK) {
          if (running) {
            log.warn("UDP socket {} is gone (errno {}); its loop stops", name, -n);
          }
          return;
        }
        if (timeToLog()) {
          log.warn("reading UDP socket {} failed: errno {}", name, -n);
        }
        // A failure that repeats (out of kernel memory) must not spin a core.
        LockSupport.parkNanos(1_000_000);
        continue;
      }
      if (n == 0) {
        continue;
      }
      int at = 0;
      clock.start();
      for (int k = 0; k < n; k++) {
        try {
          at = answer(k, at);
        } catch (StackOverflowError | OutOfMemoryError e) {
          // One query's failure must not end the socket's only reader: that query goes
          // unanswered, like one the kernel dropped, and the loop reads on.
          clock.start();
          if (timeToLog()) {
            log.error("answering a UDP query on {} failed", name, e);
          }
        }
      }
      int lost = NativeUdp.send(batch, fd, n);
      if (lost > 0) {
        queues.sendDropped(lost);
      }
    }
  }

  /** Answers the query in slot {@code k}, its reply packed at {@code at}; the next free offset. */
  private int answer(int k, int at) {
    int meta = metaArea + k * NativeUdp.META_BYTES;
    int len = Math.min(mem.getInt(meta + NativeUdp.IN_LENGTH), IN_BYTES);
    if (mem.getInt(meta + NativeUdp.PORT) == 0) {
      return at; // no reply can reach source port 0: a forged source, dropped as gdnsd does
    }
    InetAddress client = null;
    try {
      mem.get(k * IN_BYTES, in, 0, len);
      client = client(meta);
      if (client == null) {
        return at;
      }
      byte[] out = responder.respond(in, len, client, Transport.UDP, clock);
      if (out == null || out.length > OUT_BYTES) {
        return at;
      }
      mem.put(outArea + at, out);
      mem.putInt(meta + NativeUdp.OUT_OFFSET, at);
      mem.putInt(meta + NativeUdp.OUT_LENGTH, out.length);
      return at + out.length;
    } catch (RuntimeException e) {
      clock.start(); // the failed query's time is not the next one's
      log.warn("failed to answer a UDP query from {}", client, e);
      return at;
    }
  }

  private boolean timeToLog() {
    long now = System.nanoTime();
    if (now - lastErrorLogged < ERROR_LOG_NANOS) {
      return false;
    }
    lastErrorLogged = now;
    return true;
  }

  /** The sender of the datagram whose meta block starts at {@code meta}; null: not IP. */
  private InetAddress client(int meta) {
    int family = mem.getInt(meta + NativeUdp.FAMILY);
    int size = family == 4 ? 4 : family == 6 ? 16 : 0;
    if (size == 0) {
      return null;
    }
    int from = meta + NativeUdp.ADDRESS;
    if (family == lastFamily && lastClient != null && same(from, size)) {
      return lastClient;
    }
    byte[] bytes = new byte[size];
    mem.get(from, bytes, 0, size);
    try {
      // A 16-byte IPv4-mapped address comes back as the IPv4 address, as Netty gave it.
      lastClient = InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      return null; // only for a length other than 4 or 16
    }
    lastFamily = family;
    System.arraycopy(bytes, 0, lastBytes, 0, size);
    return lastClient;
  }

  private boolean same(int from, int size) {
    for (int i = 0; i < size; i++) {
      if (mem.get(from + i) != lastBytes[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return "native UDP loop on " + name + " (fd " + fd + ")";
  }
}
