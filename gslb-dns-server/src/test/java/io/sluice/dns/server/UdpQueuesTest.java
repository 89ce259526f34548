package io.sluice.dns.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading the kernel's UDP socket table as Linux prints it. */
class UdpQueuesTest {
  @Test
  void procAddressesAreWordsInHostOrder() throws Exception {
    boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    assertArrayEquals(
        InetAddress.getByName("127.0.0.1").getAddress(),
        UdpQueues.procAddress(little ? "0100007F" : "7F000001"));
    assertArrayEquals(
        InetAddress.getByName("::1").getAddress(),
        UdpQueues.procAddress(
            little ? "00000000000000000000000001000000" : "00000000000000000000000000000001"));
  }

  @Test
  void onlyTheListenersLinesAreSummed() {
    boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    String lo = little ? "0100007F" : "7F000001";
    EmbeddedChannel ch =
        new EmbeddedChannel() {
          @Override
          public java.net.SocketAddress localAddress() {
            return new java.net.InetSocketAddress("127.0.0.1", 16200);
          }
        };
    long[] totals = new long[2];
    String header =
        "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid "
            + " timeout inode ref pointer drops";
    String ours =
        "  12: "
            + lo
            + ":3F48 00000000:0000 07 00000000:00000300 00:00000000 00000000  1000        0"
            + " 4242 2 0000000000000000 17";
    String otherPort = ours.replace(":3F48", ":0035");
    // The native transport's sockets are IPv6 ones: udp6 shows the IPv4-mapped address.
    String mapped = ours.replace(lo, "0000000000000000" + (little ? "FFFF0000" : "0000FFFF") + lo);
    String otherAddress = ours.replace(lo, little ? "0200007F" : "7F000002");
    for (String line : List.of(header, ours, mapped, otherPort, otherAddress)) {
      UdpQueues.add(line, List.of(ch), totals);
    }
    assertEquals(2 * 0x300, totals[0]);
    assertEquals(34, totals[1]);
    ch.finishAndReleaseAll();
  }
}
