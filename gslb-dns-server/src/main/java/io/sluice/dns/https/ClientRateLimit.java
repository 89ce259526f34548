package io.sluice.dns.https;

import io.sluice.core.spi.Ticker;
import io.sluice.dns.response.RateLimiter;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * The HTTPDNS request rate per client network (an IPv4 or IPv6 prefix of the connection's address),
 * in the fixed-size lock-free bucket table of response rate limiting: memory is bounded whatever
 * the number of clients, and an event loop never waits. Requests over the rate are charged too, so
 * a client that keeps sending faster than its rate stays refused until it backs off for {@link
 * #RETRY_AFTER_SECONDS}.
 */
final class ClientRateLimit {
  private static final int TABLE_SLOTS = 1 << 16;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  /** A bucket owes at most one second of credit, so after two idle seconds it is full again. */
  private static final int WINDOW_SECONDS = 1;

  static final int RETRY_AFTER_SECONDS = WINDOW_SECONDS + 1;

  private final RateLimiter limiter = new RateLimiter(TABLE_SLOTS);
  private final Ticker ticker;

  ClientRateLimit(Ticker ticker) {
    this.ticker = ticker;
  }

  /** Charges one request of {@code client}; whether it is within the rate of {@code s}. */
  boolean allow(InetAddress client, HttpsSettings s) {
    long key;
    if (client instanceof Inet4Address v4) {
      // An IPv4 address's hash code is the address itself.
      key = RateLimiter.mix(limiter.seed(), v4.hashCode() & s.ipv4Mask);
    } else {
      byte[] a = client.getAddress();
      int bits = s.ipv6Prefix;
      long hi = bigEndian(a, 0) & (bits >= 64 ? -1L : -1L << (64 - bits));
      long lo = bits <= 64 ? 0 : bigEndian(a, 8) & (bits >= 128 ? -1L : -1L << (128 - bits));
      key = RateLimiter.mix(RateLimiter.mix(limiter.seed(), hi), lo);
    }
    int result =
        limiter.charge(
            key, ticker.nanoTime() / NANOS_PER_SECOND, s.requestsPerSecond, WINDOW_SECONDS, 0);
    return result == RateLimiter.PASS;
  }

  private static long bigEndian(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | (b[off + i] & 0xff);
    }
    return v;
  }
}
