package io.sluice.core.spi;

import java.util.Locale;

/** The kind of zone transfer a secondary asked for. */
public enum TransferKind {
  /** A full transfer (RFC 5936). */
  AXFR,
  /** An incremental transfer (RFC 1995). */
  IXFR;

  /** The metric label: {@code axfr}, {@code ixfr}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
