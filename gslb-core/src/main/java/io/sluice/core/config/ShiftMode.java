package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How far the controller moves a service's traffic on its own ({@code traffic.mode}). */
public enum ShiftMode {
  /** Fails over and ramps by itself; failback waits for a person unless autoFailback is set. */
  @JsonProperty("auto")
  AUTO,
  /** Proposes each move (or each step) and waits for a confirmation before acting. */
  @JsonProperty("auto-with-confirm")
  AUTO_WITH_CONFIRM,
  /** Moves nothing by itself: only operators' commands shift traffic. */
  @JsonProperty("manual")
  MANUAL;

  private final String text = Spellings.of(this);

  /** The spelling in the configuration and in status output. */
  @Override
  public String toString() {
    return text;
  }
}
