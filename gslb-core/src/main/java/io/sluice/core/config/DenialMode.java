package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a signed zone proves that a name or type does not exist, without a precomputed chain. */
public enum DenialMode {
  /** Compact denial of existence (RFC 9824): NSEC with NXNAME, NXDOMAIN answered as NODATA. */
  @JsonProperty("compact")
  COMPACT,
  /** Minimally covering NSEC records ("white lies", RFC 4470) made per query. */
  @JsonProperty("white-lies")
  WHITE_LIES;

  private final String text = Spellings.of(this);

  /** The spelling in the configuration. */
  @Override
  public String toString() {
    return text;
  }
}
