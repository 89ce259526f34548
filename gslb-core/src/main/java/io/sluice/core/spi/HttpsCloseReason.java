package io.sluice.core.spi;

/**
 * Why the DoH/HTTPDNS listener closed a connection itself (its slow and flooding client defences).
 */
public enum HttpsCloseReason {
  /** A new connection whose source already held {@code dns.https.maxConnectionsPerSource}. */
  SOURCE_LIMIT("source-limit"),
  /** A new connection while {@code dns.https.maxConnections} were open. */
  LISTENER_FULL("listener-full"),
  /** A request started but did not arrive whole within {@code dns.https.requestTimeout}. */
  REQUEST_TIMEOUT("request-timeout"),
  /** Nothing carried for {@code dns.https.idleTimeout}. */
  IDLE_TIMEOUT("idle-timeout");

  private final String label;

  HttpsCloseReason(String label) {
    this.label = label;
  }

  /** The metrics label. */
  public String label() {
    return label;
  }
}
