package io.sluice.core.traffic;

/**
 * A move waiting for an operator: {@code kind} is {@code start} (a proposed failover), {@code
 * failback} or {@code step} (the next step of a ramp); {@code proposal} is the ramp to start, null
 * for a step. At {@code expiresMillis} the service's {@code onConfirmTimeout} policy applies.
 */
public record Pending(
    String kind, String summary, long sinceMillis, long expiresMillis, Ramp proposal) {}
