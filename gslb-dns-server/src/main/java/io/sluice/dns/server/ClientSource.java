package io.sluice.dns.server;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** The key the per-source connection caps of the TCP and HTTPS listeners count a client by. */
public final class ClientSource {
  private ClientSource() {}

  /**
   * The whole IPv4 address, or the /64 of an IPv6 address, since one IPv6 host is usually given a
   * whole /64; usable as a map key.
   */
  public static Object key(SocketAddress remote) {
    if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
      return ByteBuffer.allocate(0);
    }
    byte[] a = inet.getAddress().getAddress();
    return ByteBuffer.wrap(inet.getAddress() instanceof Inet4Address ? a : Arrays.copyOf(a, 8));
  }
}
