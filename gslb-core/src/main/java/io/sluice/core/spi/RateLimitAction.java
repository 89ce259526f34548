package io.sluice.core.spi;

/** What response rate limiting did with a response over its limit. */
public enum RateLimitAction {
  /** Sent anyway: the limiter runs in log-only mode. */
  LOGGED,
  /** Sent truncated (TC=1, no records), so a real client retries over TCP. */
  SLIPPED,
  /** Not sent. */
  DROPPED
}
