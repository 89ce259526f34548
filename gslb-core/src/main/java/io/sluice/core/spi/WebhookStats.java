package io.sluice.core.spi;

/** What a metrics backend reads, at each scrape, about one webhook's deliveries. */
public interface WebhookStats {

  /** Events this webhook acknowledged (2xx) since start. */
  long delivered();

  /** Attempts that failed (an error status, a timeout, a refused connection) since start. */
  long failures();

  /** Events dropped undelivered because the outbox was full, since start. */
  long dropped();

  /** Events waiting for this webhook now. */
  long pending();

  /** Age in seconds of the oldest event waiting for this webhook (0: none). */
  double oldestPendingSeconds();
}
