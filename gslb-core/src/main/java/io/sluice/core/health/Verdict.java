package io.sluice.core.health;

/** The debounced health of an endpoint. */
public enum Verdict {
  /** Passing its checks. */
  UP,
  /** Heartbeat failing while the full-link check passes: visible, but still usable. */
  SUSPECT,
  /** Confirmed failing the full-link check (by quorum when several vantages report). */
  DOWN,
  /** No evidence yet (fresh start, no check has run). */
  UNKNOWN;

  /** True when the policy chain may hand out an endpoint with this verdict. */
  public boolean usable() {
    return this != DOWN;
  }
}
