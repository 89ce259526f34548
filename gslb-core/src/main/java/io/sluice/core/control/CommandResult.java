package io.sluice.core.control;

import java.util.Map;

/**
 * The outcome of an accepted command: the snapshot version it produced, a human summary and, for
 * commands that report more (a reload lists what it changed), structured details.
 */
public record CommandResult(
    long snapshotVersion, boolean changed, String message, Map<String, Object> details) {

  public CommandResult {
    details = details == null ? Map.of() : details;
  }

  /** A result without details. */
  public CommandResult(long snapshotVersion, boolean changed, String message) {
    this(snapshotVersion, changed, message, Map.of());
  }
}
