package io.sluice.core.spi;

/** Why the DNS listener closed a TCP connection itself (RFC 7766 §6.2.3 defences). */
public enum TcpCloseReason {
  /** Its source held its share of the table when a new connection from it arrived. */
  SOURCE_LIMIT("source-limit"),
  /** The whole table was full when a new connection arrived. */
  TABLE_FULL("table-full"),
  /** A message started but did not arrive whole within the message timeout. */
  MESSAGE_TIMEOUT("message-timeout"),
  /** No new message started within the idle timeout. */
  IDLE_TIMEOUT("idle-timeout");

  private final String label;

  TcpCloseReason(String label) {
    this.label = label;
  }

  /** The metrics label. */
  public String label() {
    return label;
  }
}
