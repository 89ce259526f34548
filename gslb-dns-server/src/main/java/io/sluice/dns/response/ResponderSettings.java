package io.sluice.dns.response;

import io.sluice.core.config.DnsConfig;

/**
 * The protocol settings the responder reads per query: the EDNS UDP payload size it advertises and
 * accepts, the CHAOS {@code version.bind}/{@code id.server} texts (null: refused), and the NSID
 * option (RFC 5001) encoded once, code and length included (null: no NSID configured), so a query
 * that asks for it costs one array copy.
 */
public record ResponderSettings(
    int udpPayloadSize, String chaosVersion, String chaosId, byte[] nsidOption) {

  /** The settings of a DNS config section. */
  public static ResponderSettings of(DnsConfig dns) {
    byte[] nsid = dns.nsidBytes();
    return new ResponderSettings(
        dns.udpPayloadSize(),
        dns.chaos().version(),
        dns.chaos().id(),
        nsid == null ? null : EdnsOptions.option(EdnsOptions.NSID, nsid));
  }
}
