package io.sluice.core.config;

import java.time.Duration;
import java.util.List;

/**
 * Node-wide probe settings: this node's vantage name, the always-up canary targets that watch the
 * probe path, and how long start-up waits for a first round of checks.
 */
public record ProbeConfig(
    String vantage, List<String> canaries, Duration startupWait, Integer maxInFlight) {

  public ProbeConfig {
    vantage = vantage == null ? "local" : vantage;
    canaries = Lists.copy(canaries);
    startupWait = startupWait == null ? Duration.ofSeconds(5) : startupWait;
    maxInFlight = maxInFlight == null ? 512 : maxInFlight;
  }

  public static ProbeConfig defaults() {
    return new ProbeConfig(null, null, null, null);
  }

  void validate(String path, Problems p) {
    if (vantage.isBlank()) {
      p.add(Problems.child(path, "vantage"), "must not be empty");
    }
    if (startupWait.isNegative()) {
      p.add(Problems.child(path, "startupWait"), "must not be negative");
    }
    p.range(Problems.child(path, "maxInFlight"), maxInFlight, 1, 1_000_000);
  }
}
