package io.sluice.dns.response;

/** How a query arrived; TCP answers may be up to 65535 bytes. */
public enum Transport {
  UDP("udp"),
  TCP("tcp");

  private final String label;

  Transport(String label) {
    this.label = label;
  }

  /** The metrics label. */
  public String label() {
    return label;
  }
}
