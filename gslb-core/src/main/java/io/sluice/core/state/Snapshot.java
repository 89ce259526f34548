package io.sluice.core.state;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.HealthView;

/**
 * One immutable, versioned view of config + health + traffic state. The query path reads one per
 * query and never blocks; every change builds the next snapshot.
 */
public record Snapshot(
    long version,
    long configVersion,
    SluiceConfig config,
    HealthView health,
    TrafficState traffic) {

  /** The first snapshot for a freshly loaded configuration. */
  public static Snapshot initial(SluiceConfig config) {
    return new Snapshot(1, 1, config, HealthView.EMPTY, TrafficState.EMPTY);
  }

  /** The same state with a new configuration (the config version is raised by the store). */
  public Snapshot withConfig(SluiceConfig c) {
    return new Snapshot(version, configVersion + 1, c, health, traffic);
  }

  public Snapshot withHealth(HealthView h) {
    return new Snapshot(version, configVersion, config, h, traffic);
  }

  public Snapshot withTraffic(TrafficState t) {
    return new Snapshot(version, configVersion, config, health, t);
  }

  Snapshot withVersion(long v) {
    return new Snapshot(v, configVersion, config, health, traffic);
  }
}
