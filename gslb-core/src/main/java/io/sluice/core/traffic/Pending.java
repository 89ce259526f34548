package io.sluice.core.traffic;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Something waiting for an operator: a proposed failover or failback ({@code proposal} is the ramp
 * to start), the next step of a ramp, or a ramp paused by a failing gate. {@code heldByFreeze}
 * marks a change the controller would have made itself but holds because the service (or all) is
 * frozen; it waits for confirmation like a proposal. At {@code expiresMillis} the service's {@code
 * onConfirmTimeout} policy applies (never while frozen, never to a paused ramp).
 */
public record Pending(
    Kind kind,
    String summary,
    long sinceMillis,
    long expiresMillis,
    Ramp proposal,
    boolean heldByFreeze) {

  /** What waits; the JSON names are part of the persisted state and of the API. */
  public enum Kind implements WireName {
    /** A proposed (or held) failover: confirm starts its ramp. */
    START("start"),
    /** A proposed (or held) failback: confirm starts its ramp. */
    FAILBACK("failback"),
    /** The next step of a ramp that asks before each step. */
    STEP("step"),
    /** A ramp paused by a failing gate: confirm retries the next step, reject rolls back. */
    RESUME("resume");

    private final String wire;

    Kind(String wire) {
      this.wire = wire;
    }

    @Override
    @JsonValue
    public String wire() {
      return wire;
    }

    @JsonCreator
    static Kind of(String wire) {
      return WireName.parse(values(), wire, "pending kind");
    }

    @Override
    public String toString() {
      return wire;
    }
  }

  /** A confirmation the controller asks for itself. */
  static Pending of(Kind kind, String summary, long now, long expires, Ramp proposal) {
    return new Pending(kind, summary, now, expires, proposal, false);
  }

  /**
   * A change a freeze held, once the freeze has ended: no longer held (its confirm timeout runs
   * from {@code now}), and its summary says it waits for an operator rather than for the freeze.
   */
  Pending releasedAt(long now, long timeoutMillis) {
    String released =
        summary.endsWith(HELD_SUFFIX)
            ? summary.substring(0, summary.length() - HELD_SUFFIX.length()) + RELEASED_SUFFIX
            : summary;
    return new Pending(kind, released, sinceMillis, now + timeoutMillis, proposal, false);
  }

  /** How the summary of a change held by a freeze ends. */
  static final String HELD_SUFFIX = " (held by freeze)";

  /** How it ends once the freeze is over and the change waits for confirm or reject. */
  static final String RELEASED_SUFFIX = " (was held by freeze: confirm or reject)";
}
