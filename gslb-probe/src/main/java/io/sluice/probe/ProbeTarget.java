package io.sluice.probe;

import io.sluice.probe.check.Check;
import io.sluice.probe.debounce.Layer;

/**
 * One scheduled check: of an endpoint ({@code key} is {@code pool/endpoint}, {@code layer} set) or
 * of a canary ({@code key} is the canary as configured, {@code layer} null).
 */
public record ProbeTarget(String key, Layer layer, Check check, long intervalNanos) {

  /** True for a canary of the probe path. */
  public boolean canary() {
    return layer == null;
  }

  /** The kind for metrics and reports: {@code heartbeat}, {@code fullLink} or {@code canary}. */
  public String kind() {
    return layer == null ? "canary" : layer.wireName();
  }
}
