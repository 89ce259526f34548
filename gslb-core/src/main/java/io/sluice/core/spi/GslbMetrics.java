package io.sluice.core.spi;

/**
 * Where every module reports what it measures. Every method has a no-op default, so a module can
 * run without a metrics backend; the admin module binds it to Micrometer. Implementations must be
 * cheap and non-blocking: the DNS path calls them per query.
 */
public interface GslbMetrics {

  /** A metrics sink that discards everything. */
  GslbMetrics NOOP = new GslbMetrics() {};

  /**
   * A sink of the same kind recording into meters nobody reads: the start-up warm-up records its
   * synthetic queries there, so they reach no documented metric while the query path runs the same
   * code (and the JIT sees the same classes) as for real queries.
   */
  default GslbMetrics detached() {
    return NOOP;
  }

  /**
   * One DNS query answered, or dropped. {@code zone} is the origin of a served zone, or {@code ""};
   * {@code qtype} is the wire query type or {@link DnsQueryLabels#NO_QUESTION}; {@code rcode} the
   * extended rcode (0..16, 23 BADCOOKIE) or {@link DnsQueryLabels#DROPPED}. The client chooses the
   * query type, so implementations label it only through {@link DnsQueryLabels}.
   */
  default void dnsQuery(String zone, int qtype, int rcode, boolean tcp, long nanos) {}

  /**
   * As {@link #dnsQuery(String, int, int, boolean, long)}, for a query whose answer was ready at
   * {@code endNanoTime} (a {@link System#nanoTime()} reading the caller took anyway): a backend
   * that keeps time windows need not read the clock again.
   */
  default void dnsQuery(
      String zone, int qtype, int rcode, boolean tcp, long nanos, long endNanoTime) {
    dnsQuery(zone, qtype, rcode, tcp, nanos);
  }

  /** The DNS listener closed a TCP connection itself, for {@code reason}. */
  default void dnsTcpClosed(TcpCloseReason reason) {}

  /** The number of open TCP DNS connections changed to {@code open}. */
  default void dnsTcpOpen(int open) {}

  /**
   * The DNS listeners are bound; their queues and drops are read from {@code stats} whenever
   * metrics are scraped.
   */
  default void dnsSockets(DnsSocketStats stats) {}

  /**
   * Response rate limiting found a UDP response of {@code kind} over its limit and did {@code
   * action} with it.
   */
  default void dnsRateLimited(RateLimitKind kind, RateLimitAction action) {}

  /** A zone transfer request of {@code zone} ended with {@code outcome}. */
  default void zoneTransfer(String zone, TransferKind kind, TransferOutcome outcome) {}

  /** A NOTIFY for {@code zone} was answered by a secondary ({@code ok}) or given up on. */
  default void notifySent(String zone, boolean ok) {}

  /**
   * One request on the HTTPS listener answered with HTTP {@code status}: {@code endpoint} is {@code
   * doh}, {@code httpdns} or {@code other} (another path), {@code method} is {@code GET}, {@code
   * POST} or {@code other}; both from these fixed sets, never from the client.
   */
  default void httpsRequest(String endpoint, String method, int status) {}

  /** The HTTPS listener closed a connection itself, for {@code reason}. */
  default void httpsClosed(HttpsCloseReason reason) {}

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

  /**
   * A ramp of {@code kind} ({@code weights}, {@code move}, {@code failover}, {@code failback})
   * started.
   */
  default void rampStarted(String service, String kind) {}

  /** A ramp advanced a step. */
  default void rampStep(String service, double percent) {}

  /** A rollback completed, in {@code nanos} from command to the new snapshot. */
  default void rollback(String service, long nanos) {}

  /**
   * A policy event on one served answer: {@code fail-open}, {@code fail-closed}, {@code
   * drained-last-resort}, {@code residency-last-resort}, or, when the planner failed, {@code
   * last-decision} (the service's last answer was served again) or {@code planner-failed}
   * (SERVFAIL: nothing to fall back to).
   */
  default void policyEvent(String service, String event) {}

  /**
   * The last load reported for {@code pool} (in the unit of its capacity) and its age in seconds; a
   * load older than the pool's {@code load.staleAfter} is ignored by the capacity step.
   */
  default void poolLoad(String pool, double load, double ageSeconds) {}

  /** A configuration reload was attempted. */
  default void configReload(boolean ok) {}

  /** Whether the state store's last write (journal and audit log) succeeded. */
  default void storeHealthy(boolean healthy) {}

  /**
   * A webhook is configured: its delivery counters and backlog are read from {@code stats} at each
   * scrape (the same object for the same name across reloads).
   */
  default void webhook(String name, WebhookStats stats) {}

  /** The webhook outbox exists: whether it can be written is read from {@code healthy}. */
  default void webhookOutbox(java.util.function.BooleanSupplier healthy) {}
}
