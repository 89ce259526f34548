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

  /** The same, with its confirm timeout starting again at {@code now}. */
  Pending restartedAt(long now, long timeoutMillis) {
    return new Pending(kind, summary, sinceMillis, now + timeoutMillis, proposal, heldByFreeze);
  }
}
