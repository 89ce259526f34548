package io.sluice.core.traffic;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The outcome of one gate evaluation: whether every gate held, what each measured, and why not. */
public record GateResult(boolean passed, Map<String, Object> measured, String failure) {

  public GateResult {
    measured = Collections.unmodifiableMap(new LinkedHashMap<>(measured));
  }
}
