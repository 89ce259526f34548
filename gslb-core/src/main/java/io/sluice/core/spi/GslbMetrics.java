package io.sluice.core.spi;

/**
 * Where every module reports what it measures. Every method has a no-op default, so a module can
 * run without a metrics backend; the admin module binds it to Micrometer. Implementations must be
 * cheap and non-blocking: the DNS path calls them per query.
 */
public interface GslbMetrics {

  /** A metrics sink that discards everything. */
  GslbMetrics NOOP = new GslbMetrics() {};

  /** One DNS query answered (or dropped: rcode "DROPPED"). */
  default void dnsQuery(String zone, String qtype, String rcode, String transport, long nanos) {}

  /** One service answer naming a pool; {@code nearest} when the pool is in the client's region. */
  default void serviceAnswer(String service, String pool, boolean nearest) {}

  /** One health check finished. */
  default void probeCheck(String kind, boolean ok, String reason, long nanos) {}

  /** How late a scheduled check started. */
  default void probeScheduleLag(long nanos) {}

  /** A vantage's probe path changed: its canaries failed ({@code impaired}) or recovered. */
  default void probePathImpaired(String vantage, boolean impaired) {}

  /** A verdict changed. */
  default void verdictChange(String endpoint, String from, String to) {}

  /** A ramp advanced a step. */
  default void rampStep(String service, double percent) {}

  /** A rollback completed, in {@code nanos} from command to the new snapshot. */
  default void rollback(String service, long nanos) {}

  /**
   * A policy event on one served answer: {@code fail-open}, {@code fail-closed}, {@code
   * drained-last-resort} or {@code residency-last-resort}.
   */
  default void policyEvent(String service, String event) {}

  /**
   * The last load reported for {@code pool} (in the unit of its capacity) and its age in seconds; a
   * load older than the pool's {@code load.staleAfter} is ignored by the capacity step.
   */
  default void poolLoad(String pool, double load, double ageSeconds) {}

  /** The TTL a service currently serves. */
  default void servedTtl(String service, long ttl) {}

  /** A configuration reload was attempted. */
  default void configReload(boolean ok) {}
}
