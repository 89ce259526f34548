package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Which loop reads and answers the UDP listeners' datagrams ({@code dns.udpLoop}). */
public enum UdpLoop {
  /**
   * The native batch loop (one recvmmsg, then one sendmmsg per batch) where its library is in the
   * jar and loads; Netty's epoll loop otherwise.
   */
  @JsonProperty("native")
  NATIVE,
  /** Always Netty's event loops. */
  @JsonProperty("netty")
  NETTY;

  private final String text = Spellings.of(this);

  /** The spelling in the configuration. */
  @Override
  public String toString() {
    return text;
  }
}
