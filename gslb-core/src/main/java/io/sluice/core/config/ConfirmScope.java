package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What one confirmation covers in auto-with-confirm mode ({@code traffic.confirm}). */
public enum ConfirmScope {
  /** Every step of a ramp is proposed and confirmed on its own. */
  @JsonProperty("step")
  STEP,
  /** One confirmation starts the move and covers its whole ramp. */
  @JsonProperty("move")
  MOVE;

  private final String text = Spellings.of(this);

  /** The spelling in the configuration. */
  @Override
  public String toString() {
    return text;
  }
}
