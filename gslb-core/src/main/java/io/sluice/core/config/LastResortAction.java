package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a service answers when red-line rules leave no pool ({@code lastResort.action}). */
public enum LastResortAction {
  /** SERVFAIL, so resolvers try another server or keep what they have. */
  @JsonProperty("servfail")
  SERVFAIL,
  /** An empty NOERROR answer. */
  @JsonProperty("empty")
  EMPTY,
  /** The fixed addresses of {@code lastResort.addresses}. */
  @JsonProperty("address")
  ADDRESS;

  private final String text = Spellings.of(this);

  /** The spelling in the configuration and in decision explanations. */
  @Override
  public String toString() {
    return text;
  }
}
