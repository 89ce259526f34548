package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A service's last resort: its action read from the file, and every problem named by path. */
class LastResortConfigTest {
  static final String PREFIX = "zones[0].services[0].lastResort.";

  static ServiceConfig parse(String lastResort) throws ConfigException {
    return OneService.parse("lastResort", lastResort).services().get(0);
  }

  @Test
  void servfailIsTheDefaultAndEveryActionIsRead() throws Exception {
    assertEquals(LastResortAction.SERVFAIL, parse("{}").lastResort().action());
    assertEquals(LastResortAction.EMPTY, parse("{ action: empty }").lastResort().action());
    LastResortConfig a = parse("{ action: Address, addresses: [192.0.2.99] }").lastResort();
    assertEquals(LastResortAction.ADDRESS, a.action());
    assertEquals(List.of("192.0.2.99"), a.addresses());
  }

  @Test
  void anUnknownActionAndABadAddressAreBothReported() {
    ConfigException e =
        assertThrows(ConfigException.class, () -> parse("{ action: drop, addresses: [nowhere] }"));
    assertTrue(
        e.getMessage().contains(PREFIX + "action: must be one of servfail, empty, address, was"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains(PREFIX + "addresses[0]: must be an IP address, was 'nowhere'"),
        e.getMessage());
  }

  @Test
  void anAddressActionNeedsAddresses() {
    ConfigException e = assertThrows(ConfigException.class, () -> parse("{ action: address }"));
    assertTrue(
        e.getMessage().contains(PREFIX + "addresses: at least one address is required"),
        e.getMessage());
  }
}
