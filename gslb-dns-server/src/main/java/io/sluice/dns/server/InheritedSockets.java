package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.UnixChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listening sockets a node received from the node it takes over from (a zero-downtime restart),
 * each still bound, with its kernel queues intact. The listeners take the ones matching their
 * configured addresses instead of binding new sockets, so not one queued query is lost and the
 * kernel's SO_REUSEPORT group keeps its members.
 */
public final class InheritedSockets {
  private static final Logger log = LoggerFactory.getLogger(InheritedSockets.class);

  /** No inherited sockets: every listener binds its own. */
  public static final InheritedSockets NONE = new InheritedSockets(List.of());

  /** What a handed-over socket serves. */
  public enum Kind {
    DNS_UDP("udp"),
    DNS_TCP("tcp"),
    HTTPS("https");

    private final String token;

    Kind(String token) {
      this.token = token;
    }

    /** The word naming this kind on the handover socket. */
    public String token() {
      return token;
    }

    /** The kind a handover word names. */
    public static Kind of(String token) {
      for (Kind k : values()) {
        if (k.token.equals(token)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown listener kind '" + token + "'");
    }
  }

  /** One listening socket: what it serves, where it is bound, its descriptor in this process. */
  public record Socket(Kind kind, InetSocketAddress address, int fd) {
    /** The socket of a bound native listener channel. */
    public static Socket of(Kind kind, Channel channel) {
      return new Socket(
          kind,
          (InetSocketAddress) channel.localAddress(),
          ((UnixChannel) channel).fd().intValue());
    }
  }

  private final List<Socket> unclaimed;

  /**
   * Handed-over sockets of one server waiting to be read: during a takeover nothing is read from
   * the shared sockets until this process is whole and answers (registering a socket with the event
   * loop is what starts reading it), so a process that fails on the way took no query with it.
   */
  public static final class Held {
    private record Pending(int fd, Supplier<ChannelFuture> registration) {}

    private final List<Pending> pending = new ArrayList<>();

    /** Holds {@code fd}, to be read once {@code registration} runs. */
    public synchronized void add(int fd, Supplier<ChannelFuture> registration) {
      pending.add(new Pending(fd, registration));
    }

    /**
     * Registers every held socket (it is read from now on) and adds its channel to {@code into}.
     */
    public synchronized void register(List<Channel> into) throws InterruptedException {
      for (Pending p : pending) {
        Channel ch = p.registration().get().sync().channel();
        into.add(ch);
        log.info("reading the handed-over socket {} now", ch.localAddress());
      }
      pending.clear();
    }

    /** Closes the sockets never registered (the process failed before it answered). */
    public synchronized void close() {
      for (Pending p : pending) {
        try {
          new FileDescriptor(p.fd()).close();
        } catch (IOException e) {
          log.warn("closing descriptor {} failed: {}", p.fd(), e.toString());
        }
      }
      pending.clear();
    }
  }

  /** The sockets received, not yet claimed by a listener. */
  public InheritedSockets(List<Socket> sockets) {
    this.unclaimed = new ArrayList<>(sockets);
  }

  /**
   * Claims every socket of {@code kind} bound to {@code address} and {@code port} (0: any port) and
   * returns their descriptors, empty when there is none.
   */
  synchronized List<Socket> claim(Kind kind, InetAddress address, int port) {
    List<Socket> claimed = new ArrayList<>();
    for (var it = unclaimed.iterator(); it.hasNext(); ) {
      Socket s = it.next();
      if (s.kind() == kind
          && s.address().getAddress().equals(address)
          && (port == 0 || s.address().getPort() == port)) {
        claimed.add(s);
        it.remove();
      }
    }
    return claimed;
  }

  /** Claims the sockets for an HTTPS listener (the DoH package binds its own). */
  public List<Socket> claimHttps(InetAddress address, int port) {
    return claim(Kind.HTTPS, address, port);
  }

  /**
   * Closes the sockets no listener claimed (the new configuration no longer listens there); call
   * once the old node has stopped reading them.
   */
  public synchronized void closeUnclaimed() {
    for (Socket s : unclaimed) {
      log.info("closing the handed-over {} socket on {}: no longer configured", s.kind(), s);
      try {
        new FileDescriptor(s.fd()).close();
      } catch (IOException e) {
        log.warn("closing descriptor {} failed: {}", s.fd(), e.toString());
      }
    }
    unclaimed.clear();
  }
}
