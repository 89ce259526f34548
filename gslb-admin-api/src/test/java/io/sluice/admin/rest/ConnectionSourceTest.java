package io.sluice.admin.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The admin API counts a client by its IPv4 address or the /64 of its IPv6 address. */
class ConnectionSourceTest {
  private static String source(String address, int port) throws Exception {
    return ConnectionGuard.source(new InetSocketAddress(InetAddress.getByName(address), port));
  }

  @Test
  void oneIpv6HostCannotTakeMoreSlotsByPickingOtherAddressesOfItsSlash64() throws Exception {
    assertEquals("2001:db8:1:2:0:0:0:0/64", source("2001:db8:1:2::1", 1000));
    assertEquals(source("2001:db8:1:2::1", 1000), source("2001:db8:1:2:ffff:ee:dd:cc", 2000));
    assertNotEquals(source("2001:db8:1:2::1", 1000), source("2001:db8:1:3::1", 1000));
  }

  @Test
  void ipv4ClientsAreCountedByTheirWholeAddress() throws Exception {
    assertEquals("192.0.2.1", source("192.0.2.1", 1000));
    assertEquals(source("192.0.2.1", 1000), source("192.0.2.1", 2000));
    assertNotEquals(source("192.0.2.1", 1000), source("192.0.2.2", 1000));
  }
}
