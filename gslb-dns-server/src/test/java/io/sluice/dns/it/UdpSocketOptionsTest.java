package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;
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
 * The UDP sockets ignore path MTU information for replies, read back from the kernel, and still
 * answer: the native loop's sockets set the don't-fragment bit (IP_PMTUDISC_PROBE, and its IPv6
 * twin on IPv6 sockets), those Netty reads send without it (IP_PMTUDISC_OMIT).
 */
class UdpSocketOptionsTest {
  private static final int PROBE = 3;
  private static final int OMIT = 5;

  @Test
  void nativeLoopSocketsSetDontFragment() throws Exception {
    assumeTrue(Epoll.isAvailable(), "no epoll transport here: the option is set on Linux only");
    try (TestServer server = TestServer.start(config(""))) {
      if (!server.node.server().nativeUdpLoop()) {
        String reason = "the native UDP loop did not start (see the log: built without cc?)";
        if ("true".equals(System.getenv("CI"))) {
          fail(reason + "; CI=true, so this is a failure, not a skip");
        }
        assumeTrue(false, reason);
      }
      assertModes(server, PROBE);
    }
  }

  @Test
  void nettySocketsOmitPathMtuDiscovery() throws Exception {
    assumeTrue(Epoll.isAvailable(), "no epoll transport here: the option is set on Linux only");
    try (TestServer server = TestServer.start(config("\n  udpLoop: netty"))) {
      assertFalse(server.node.server().nativeUdpLoop());
      assertModes(server, OMIT);
    }
  }

  /** The test configuration on 127.0.0.1, and ::1 where it exists, with {@code dns} added. */
  private static String config(String dns) {
    String yaml = TestZones.CONFIG.replace("threads: 1", "threads: 1" + dns);
    return hasLoopback6()
        ? yaml.replace("listen: [127.0.0.1]", "listen: [127.0.0.1, \"::1\"]")
        : yaml;
  }

  private static void assertModes(TestServer server, int mode) throws Exception {
    List<InheritedSockets.Socket> udp =
        server.node.server().listeningSockets().stream()
            .filter(s -> s.kind() == InheritedSockets.Kind.DNS_UDP)
            .toList();
    assertFalse(udp.isEmpty(), "the server's UDP sockets");
    for (InheritedSockets.Socket s : udp) {
      // A view of the descriptor the server owns; it is not closed here.
      Socket fd = new Socket(s.fd());
      boolean v6 = s.address().getAddress() instanceof Inet6Address;
      assertEquals(mode, fd.getIntOpt(0, 10), "IP_MTU_DISCOVER of " + s.address());
      if (v6) {
        assertEquals(mode, fd.getIntOpt(41, 23), "IPV6_MTU_DISCOVER of " + s.address());
      }
    }
    assertEquals(Rcode.NOERROR, server.query("www.example.test.", Type.A, false).getRcode());
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
