package io.sluice.probe.debounce;

/** The two check layers of an endpoint. */
public enum Layer {
  /** Fast and cheap; failing alone makes an endpoint suspect, never down. */
  HEARTBEAT("heartbeat"),
  /** Slow and deep; its failures, confirmed, make an endpoint down. */
  FULL_LINK("fullLink");

  private final String wireName;

  Layer(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in reports, metrics and audit ({@code heartbeat}, {@code fullLink}). */
  public String wireName() {
    return wireName;
  }

  /** The layer named {@code name} in a report, or null. */
  public static Layer fromWireName(String name) {
    for (Layer l : values()) {
      if (l.wireName.equals(name)) {
        return l;
      }
    }
    return null;
  }
}
