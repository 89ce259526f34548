package io.sluice.dns.response;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.RateLimitAction;
import io.sluice.core.spi.RateLimitKind;
import io.sluice.core.spi.Ticker;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * Response rate limiting (RRL) of the responder: classifies a built UDP response (answer, NODATA,
 * NXDOMAIN, error), charges it to the bucket of its client network and name, zone or kind in the
 * {@link RateLimiter} table, and sends it, its truncated slip, or nothing; it counts every limited
 * response and logs at most one line a second. It reads the limits of the query's configuration,
 * and keeps its table across reloads.
 */
final class ResponseRateLimit {
  private static final Logger log = LoggerFactory.getLogger(ResponseRateLimit.class);
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final RateLimiter limiter;
  private final Ticker ticker;
  private final GslbMetrics metrics;

  /** The second before which no further rate limiting line is logged (at most one a second). */
  private final AtomicLong nextLog = new AtomicLong();

  ResponseRateLimit(int tableSize, Ticker ticker, GslbMetrics metrics) {
    this.limiter = new RateLimiter(tableSize);
    this.ticker = ticker;
    this.metrics = metrics;
  }

  /**
   * Charges {@code out} to its rate limiting bucket and returns what to send: {@code out}, the
   * truncated slip, or null (dropped). In log-only mode it is always {@code out}.
   */
  byte[] apply(
      ResponderSettings settings,
      Query q,
      byte[] in,
      byte[] out,
      int rcode,
      InetAddress client,
      byte[] ip) {
    RateLimits limits = settings.rateLimits();
    RateLimitKind kind = kindOf(rcode, out);
    long key = clientKey(limits, client, ip);
    key = RateLimiter.mix(key, kind.ordinal());
    switch (kind) {
      case ANSWER ->
          key =
              q.synthesized
                  ? RateLimiter.mix(key, 1L << 48 | zoneHash(q))
                  : RateLimiter.mix(key, (long) q.qtype << 32 | (q.nameHash & 0xffffffffL));
      case NODATA, NXDOMAIN -> key = RateLimiter.mix(key, zoneHash(q));
      case ERROR -> {}
    }
    int result =
        limiter.charge(
            key,
            ticker.nanoTime() / NANOS_PER_SECOND,
            limits.rate(kind),
            limits.window,
            limits.slip);
    if (result == RateLimiter.PASS) {
      return out;
    }
    boolean slip = (result & RateLimiter.SLIP) != 0;
    RateLimitAction action =
        limits.logOnly
            ? RateLimitAction.LOGGED
            : slip ? RateLimitAction.SLIPPED : RateLimitAction.DROPPED;
    metrics.dnsRateLimited(kind, action);
    if ((result & RateLimiter.FIRST) != 0) {
      logLimited(limits, q, kind, action, client);
    }
    return switch (action) {
      case LOGGED -> out;
      case SLIPPED -> WireSplicer.slipped(q, in, rcode, settings.udpPayloadSize());
      case DROPPED -> null;
    };
  }

  private static long zoneHash(Query q) {
    return q.zone == null ? 0 : q.zone.origin().hashCode() & 0xffffffffL;
  }

  /** The kind of answer {@code out} is, for rate limiting; {@code rcode} is its full rcode. */
  private static RateLimitKind kindOf(int rcode, byte[] out) {
    if (rcode == Rcode.NXDOMAIN) {
      return RateLimitKind.NXDOMAIN;
    }
    if (rcode != Rcode.NOERROR) {
      return RateLimitKind.ERROR;
    }
    boolean data = out[6] != 0 || out[7] != 0;
    boolean authoritative = (out[2] & 0x04) != 0;
    // A referral (no answer, AA clear) is limited like an answer.
    return data || !authoritative ? RateLimitKind.ANSWER : RateLimitKind.NODATA;
  }

  /** The hash of the client's network: its IPv4 /24 or IPv6 /56 (or as configured). */
  private long clientKey(RateLimits limits, InetAddress client, byte[] ip) {
    if (client instanceof Inet4Address v4) {
      // An IPv4 address's hash code is the address itself: no copy of its bytes per query.
      return RateLimiter.mix(limiter.seed(), v4.hashCode() & limits.ipv4Mask);
    }
    byte[] a = ip != null ? ip : client.getAddress();
    int bits = limits.ipv6Prefix;
    long hi = bigEndian(a, 0) & (bits >= 64 ? -1L : -1L << (64 - bits));
    long lo = bits <= 64 ? 0 : bigEndian(a, 8) & (bits >= 128 ? -1L : -1L << (128 - bits));
    return RateLimiter.mix(RateLimiter.mix(limiter.seed(), hi), lo);
  }

  private static long bigEndian(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[off + i] & 0xffL);
    }
    return v;
  }

  /**
   * Logs that a bucket went over its limit, at most once a second for the whole server: the metrics
   * count every limited response, the log only says who started being limited.
   */
  private void logLimited(
      RateLimits limits, Query q, RateLimitKind kind, RateLimitAction action, InetAddress client) {
    long second = ticker.nanoTime() / NANOS_PER_SECOND;
    long next = nextLog.get();
    if (second < next || !nextLog.compareAndSet(next, second + 1)) {
      return;
    }
    String what =
        switch (kind) {
          case ANSWER ->
              q.synthesized && q.zone != null
                  ? "names synthesized in " + q.zone.originText()
                  : q.qname() + " " + Type.string(q.qtype);
          case NODATA, NXDOMAIN -> q.zone == null ? "-" : q.zone.originText();
          case ERROR -> "errors";
        };
    log.warn(
        "rate limit: {} responses to {} ({}) over {}/s; {} (further limits are counted in"
            + " sluice_dns_rrl_*_total, not logged)",
        kind.label(),
        client.getHostAddress(),
        what,
        limits.rate(kind),
        action == RateLimitAction.LOGGED ? "log-only, answered" : "dropping or slipping");
  }
}
