package io.sluice.dns.server;

import io.netty.channel.Channel;
import io.sluice.core.spi.DnsSocketStats;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The queues of the UDP listeners and what overload dropped from them. Queries wait in the kernel
 * receive buffers ({@code dns.socketBufferBytes}), which drop the excess when full; replies wait in
 * each channel's outbound buffer only while the kernel refuses them, and a reply that would grow it
 * past its high-water mark is dropped instead ({@link UdpQueryHandler}). Kernel figures come from
 * {@code /proc/net/udp} and {@code /proc/net/udp6} (Linux; -1 elsewhere), read on each scrape.
 */
final class UdpQueues implements DnsSocketStats {
  private static final Path[] PROC = {Path.of("/proc/net/udp"), Path.of("/proc/net/udp6")};

  private static final byte[] V4_MAPPED = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0, 0};

  private final LongAdder sendDrops = new LongAdder();
  private volatile List<Channel> channels = List.of();

  /** The listeners to report on, once bound. */
  void bound(List<Channel> udpChannels) {
    channels = List.copyOf(udpChannels);
  }

  /** One reply was dropped because its channel's send queue was full. */
  void sendDropped() {
    sendDrops.increment();
  }

  /** {@code n} replies were dropped because the kernel's send buffer stayed full. */
  void sendDropped(int n) {
    sendDrops.add(n);
  }

  @Override
  public long sendQueueDrops() {
    return sendDrops.sum();
  }

  @Override
  public long sendQueueBytes() {
    long pending = 0;
    for (Channel ch : channels) {
      var out = ch.unsafe().outboundBuffer();
      pending += out == null ? 0 : out.totalPendingWriteBytes();
    }
    return pending;
  }

  @Override
  public long receiveQueueBytes() {
    long[] totals = kernel();
    return totals == null ? -1 : totals[0];
  }

  @Override
  public long receiveBufferDrops() {
    long[] totals = kernel();
    return totals == null ? -1 : totals[1];
  }

  /** Bytes queued and datagrams dropped, summed over the listeners' sockets; null: unknown. */
  private long[] kernel() {
    List<Channel> bound = channels;
    if (bound.isEmpty() || !Files.isReadable(PROC[0])) {
      return null;
    }
    long[] totals = new long[2];
    for (Path table : PROC) {
      try {
        for (String line : Files.readAllLines(table)) {
          add(line, bound, totals);
        }
      } catch (IOException | RuntimeException e) {
        // udp6 is absent without IPv6; a line of another format is skipped.
      }
    }
    return totals;
  }

  /**
   * Adds one socket line ({@code sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref ptr
   * drops}) when its local address is one of the listeners'.
   */
  static void add(String line, List<Channel> bound, long[] totals) {
    String[] f = line.trim().split("\\s+");
    if (f.length < 13 || !f[0].endsWith(":")) {
      return; // the header
    }
    int colon = f[1].indexOf(':');
    byte[] address = procAddress(f[1].substring(0, colon));
    int port = Integer.parseInt(f[1].substring(colon + 1), 16);
    for (Channel ch : bound) {
      InetSocketAddress local = (InetSocketAddress) ch.localAddress();
      if (local != null && local.getPort() == port && sameAddress(local, address)) {
        String queues = f[4];
        totals[0] += Long.parseLong(queues.substring(queues.indexOf(':') + 1), 16);
        totals[1] += Long.parseLong(f[f.length - 1]);
        return; // SO_REUSEPORT sockets share the address: each line counts once
      }
    }
  }

  /**
   * Whether a socket bound to {@code local} is the one at {@code proc}: the native transport opens
   * IPv6 sockets, so an IPv4 listener shows up in udp6 as its IPv4-mapped address.
   */
  private static boolean sameAddress(InetSocketAddress local, byte[] proc) {
    byte[] a = local.getAddress().getAddress();
    if (a.length == 4 && proc.length == 16) {
      return Arrays.equals(proc, 0, 12, V4_MAPPED, 0, 12) && Arrays.equals(proc, 12, 16, a, 0, 4);
    }
    return Arrays.equals(a, proc);
  }

  /** An address as /proc prints it: 32-bit words in hex, each in the host's byte order. */
  static byte[] procAddress(String hex) {
    ByteBuffer b = ByteBuffer.allocate(hex.length() / 2).order(ByteOrder.nativeOrder());
    for (int i = 0; i < hex.length(); i += 8) {
      b.putInt((int) Long.parseLong(hex.substring(i, i + 8), 16));
    }
    return b.array();
  }
}
