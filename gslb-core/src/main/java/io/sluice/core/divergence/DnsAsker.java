package io.sluice.core.divergence;

import java.io.IOException;
import java.time.Duration;

/**
 * Sends one DNS query for a name as a client subnet (EDNS Client Subnet) and returns the answer
 * section; the wire format belongs to the DNS server module, which implements it.
 */
@FunctionalInterface
public interface DnsAsker {

  /**
   * Asks {@code host:port} for {@code name} (absolute) and {@code type} ({@code A} or {@code AAAA})
   * with {@code clientSubnet} (CIDR) in an ECS option, waiting at most {@code timeout}.
   */
  NodeAnswer ask(
      String host, int port, String name, String type, String clientSubnet, Duration timeout)
      throws IOException;
}
