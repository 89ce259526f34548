package io.sluice.dns.response;

import io.sluice.core.config.RrlConfig;
import io.sluice.core.spi.RateLimitKind;

/**
 * The response rate limiting settings the responder reads per query, taken from {@code dns.rrl}
 * once per configuration: plain ints, indexed by {@link RateLimitKind}, so a query reads them
 * without unboxing or lookups.
 */
final class RateLimits {
  final boolean enabled;
  final boolean logOnly;
  private final int[] rates = new int[RateLimitKind.values().length];
  final int window;
  final int slip;
  final int ipv4Mask;
  final int ipv6Prefix;
  final int tableSize;

  RateLimits(RrlConfig c) {
    enabled = c.enabled();
    logOnly = c.logOnly();
    rates[RateLimitKind.ANSWER.ordinal()] = c.responsesPerSecond();
    rates[RateLimitKind.NODATA.ordinal()] = c.nodataPerSecond();
    rates[RateLimitKind.NXDOMAIN.ordinal()] = c.nxdomainsPerSecond();
    rates[RateLimitKind.ERROR.ordinal()] = c.errorsPerSecond();
    window = (int) c.window().toSeconds();
    slip = c.slip();
    ipv4Mask = c.ipv4PrefixLength() == 0 ? 0 : -1 << (32 - c.ipv4PrefixLength());
    ipv6Prefix = c.ipv6PrefixLength();
    tableSize = c.tableSize();
  }

  /** Responses a second one bucket of {@code kind} earns. */
  int rate(RateLimitKind kind) {
    return rates[kind.ordinal()];
  }
}
