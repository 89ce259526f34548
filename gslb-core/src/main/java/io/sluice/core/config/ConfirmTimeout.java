package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What happens to a proposal nobody confirmed in time ({@code traffic.onConfirmTimeout}). */
public enum ConfirmTimeout {
  /** The proposal is dropped, as a reject would drop it; the cooldown starts. */
  @JsonProperty("reject")
  REJECT,
  /** The proposal goes ahead, as a confirmation would start it. */
  @JsonProperty("proceed")
  PROCEED;

  private final String text = Spellings.of(this);

  /** The spelling in the configuration. */
  @Override
  public String toString() {
    return text;
  }
}
