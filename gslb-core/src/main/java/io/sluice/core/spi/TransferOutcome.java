package io.sluice.core.spi;

import java.util.Locale;

/** How a zone transfer request ended. */
public enum TransferOutcome {
  /** The whole zone was sent (an AXFR, or an IXFR answered in full). */
  FULL,
  /** Only the differences since the secondary's serial were sent. */
  INCREMENTAL,
  /** The secondary already had the current serial: one SOA was sent. */
  UP_TO_DATE,
  /** Refused: client not allowed, zone not transferable, or transfers not configured. */
  REFUSED,
  /** The request's TSIG signature was missing, used an unknown key or did not verify. */
  NOTAUTH,
  /** The connection closed before the last message was sent. */
  ABORTED;

  /** The metric label: {@code full}, {@code up_to_date}, ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
