package io.sluice.core.config;

import java.time.Duration;

/**
 * Health checking of a pool's (or one endpoint's) endpoints: a fast heartbeat and a slow full-link
 * check, with debounce thresholds and the cooldown between verdict changes.
 */
public record HealthConfig(
    CheckConfig heartbeat,
    CheckConfig fullLink,
    Integer downAfter,
    Integer upAfter,
    Duration cooldown) {

  public HealthConfig {
    downAfter = downAfter == null ? 3 : downAfter;
    upAfter = upAfter == null ? 2 : upAfter;
    cooldown = cooldown == null ? Duration.ofSeconds(60) : cooldown;
  }

  public static HealthConfig defaults() {
    return new HealthConfig(null, null, null, null, null);
  }

  /** True when no check at all is configured: endpoints are then taken as up. */
  public boolean unchecked() {
    return heartbeat == null && fullLink == null;
  }

  void validate(String path, Problems p) {
    if (heartbeat != null) {
      heartbeat.validate(Problems.child(path, "heartbeat"), p);
    }
    if (fullLink != null) {
      fullLink.validate(Problems.child(path, "fullLink"), p);
    }
    p.range(Problems.child(path, "downAfter"), downAfter, 1, 100);
    p.range(Problems.child(path, "upAfter"), upAfter, 1, 100);
    if (cooldown.isNegative()) {
      p.add(Problems.child(path, "cooldown"), "must not be negative");
    }
  }
}
