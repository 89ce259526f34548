package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import io.sluice.dns.server.InheritedSockets;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * The UDP sockets turn path MTU discovery off for replies (IP_PMTUDISC_OMIT, and its IPv6 twin on
 * IPv6 sockets), read back from the kernel, and still answer.
 */
class UdpSocketOptionsTest {
  private static final int OMIT = 5;

  @Test
  void udpSocketsOmitPathMtuDiscovery() throws Exception {
    assumeTrue(Epoll.isAvailable(), "no epoll transport here: the option is set on Linux only");
    boolean v6 = hasLoopback6();
    String yaml =
        v6
            ? TestZones.CONFIG.replace("listen: [127.0.0.1]", "listen: [127.0.0.1, \"::1\"]")
            : TestZones.CONFIG;
    try (TestServer server = TestServer.start(yaml)) {
      List<InheritedSockets.Socket> udp =
          server.node.server().listeningSockets().stream()
              .filter(s -> s.kind() == InheritedSockets.Kind.DNS_UDP)
              .toList();
      assertFalse(udp.isEmpty(), "the server's UDP sockets");
      for (InheritedSockets.Socket s : udp) {
        // A view of the descriptor the server owns; it is not closed here.
        Socket fd = new Socket(s.fd());
        assertEquals(OMIT, fd.getIntOpt(0, 10), "IP_MTU_DISCOVER of " + s.address());
        if (s.address().getAddress() instanceof Inet6Address) {
          assertEquals(OMIT, fd.getIntOpt(41, 23), "IPV6_MTU_DISCOVER of " + s.address());
        }
      }
      assertEquals(Rcode.NOERROR, server.query("www.example.test.", Type.A, false).getRcode());
    }
  }

  private static boolean hasLoopback6() {
    try (java.net.DatagramSocket s =
        new java.net.DatagramSocket(
            new java.net.InetSocketAddress(InetAddress.getByName("::1"), 0))) {
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
