package io.sluice.dns.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** What one source is, for the per-source connection limit. */
class TcpConnectionTableTest {
  private static Object source(String address) {
    return TcpConnectionTable.source(new InetSocketAddress(address, 40000));
  }

  @Test
  void anIpv4SourceIsItsAddressAndAnIpv6SourceItsSlash64() {
    assertEquals(source("192.0.2.1"), source("192.0.2.1"));
    assertNotEquals(source("192.0.2.1"), source("192.0.2.2"));
    assertEquals(source("2001:db8:1:2::1"), source("2001:db8:1:2:ffff::9"));
    assertNotEquals(source("2001:db8:1:2::1"), source("2001:db8:1:3::1"));
  }
}
