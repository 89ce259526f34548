package io.sluice.core.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * What the per-source connection caps of every listener (DNS over TCP, DNS over HTTPS, the admin
 * API) count a client by: its IPv4 address, or the /64 of its IPv6 address, since one IPv6 host is
 * usually given a whole /64 to pick addresses from.
 */
public final class ClientSource {
  private ClientSource() {}

  /**
   * The source of {@code remote} as text, usable as a map key and in log lines: {@code 192.0.2.1},
   * {@code 2001:db8:1:2:0:0:0:0/64}.
   */
  public static String key(SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress a) || a.getAddress() == null) {
      return String.valueOf(remote);
    }
    if (!(a.getAddress() instanceof Inet6Address v6)) {
      return a.getAddress().getHostAddress();
    }
    byte[] prefix = Arrays.copyOf(v6.getAddress(), 16);
    Arrays.fill(prefix, 8, 16, (byte) 0);
    try {
      return InetAddress.getByAddress(prefix).getHostAddress() + "/64";
    } catch (UnknownHostException e) {
      throw new IllegalStateException("16 bytes are an IPv6 address", e);
    }
  }
}
