package io.sluice.dns.response;

import io.sluice.core.config.DnsConfig;

/**
 * The protocol settings the responder reads per query: the EDNS UDP payload size it advertises and
 * accepts, and the CHAOS {@code version.bind}/{@code id.server} texts (null: refused).
 */
public record ResponderSettings(int udpPayloadSize, String chaosVersion, String chaosId) {

  /** The settings of a DNS config section. */
  public static ResponderSettings of(DnsConfig dns) {
    return new ResponderSettings(dns.udpPayloadSize(), dns.chaos().version(), dns.chaos().id());
  }
}
