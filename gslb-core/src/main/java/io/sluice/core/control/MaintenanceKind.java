package io.sluice.core.control;

import java.util.Locale;

/** What a maintenance window does while it runs. */
public enum MaintenanceKind {
  /** Drains a pool or one endpoint: it gets no new traffic. */
  DRAIN,
  /** Moves all clients of a service from some of its pools to others. */
  MOVE;

  /** The lower-case name used in the API, the audit log and the CLI. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind named {@code label} (any case), or null when there is none. */
  public static MaintenanceKind of(String label) {
    for (MaintenanceKind k : values()) {
      if (k.label().equalsIgnoreCase(label)) {
        return k;
      }
    }
    return null;
  }
}
