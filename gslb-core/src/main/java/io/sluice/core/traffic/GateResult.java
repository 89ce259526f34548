package io.sluice.core.traffic;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of one gate evaluation: whether every gate held, one failed, or there is not yet
 * enough evidence gathered since the step began to judge (the step then waits); what each gate
 * measured, and why it failed.
 */
public record GateResult(Status status, Map<String, Object> measured, String failure) {

  /** Passed, failed, or waiting for evidence. */
  public enum Status {
    PASSED,
    FAILED,
    WAITING
  }

  public GateResult {
    measured = Collections.unmodifiableMap(new LinkedHashMap<>(measured));
  }

  /** True when every gate held over enough evidence. */
  public boolean passed() {
    return status == Status.PASSED;
  }

  /** True when a gate failed. */
  public boolean failed() {
    return status == Status.FAILED;
  }
}
