package io.sluice.core.state;

import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.HealthView;

/**
 * One immutable, versioned view of config + health + traffic state, with what was built from the
 * config ({@link ConfigArtifacts}: zone data, encoded answers, the compiled policy chain). The
 * query path reads one per query and never blocks; every change builds the next snapshot.
 */
public record Snapshot(
    long version,
    long configVersion,
    SluiceConfig config,
    HealthView health,
    TrafficState traffic,
    ConfigArtifacts artifacts) {

  /** The first snapshot for a freshly loaded configuration, with nothing built from it yet. */
  public static Snapshot initial(SluiceConfig config) {
    return initial(config, ConfigArtifacts.EMPTY);
  }

  /** The first snapshot for {@code config} and the {@code artifacts} built from it. */
  public static Snapshot initial(SluiceConfig config, ConfigArtifacts artifacts) {
    return new Snapshot(1, 1, config, HealthView.EMPTY, TrafficState.EMPTY, artifacts);
  }

  /**
   * The same state with a new configuration and nothing built from it (the config version is raised
   * by the store); a served configuration goes through {@link ConfigPublisher} instead.
   */
  public Snapshot withConfig(SluiceConfig c) {
    return withConfig(c, ConfigArtifacts.EMPTY);
  }

  /** The same state with a new configuration and the artifacts built from it, swapped as one. */
  public Snapshot withConfig(SluiceConfig c, ConfigArtifacts a) {
    return new Snapshot(version, configVersion + 1, c, health, traffic, a);
  }

  public Snapshot withHealth(HealthView h) {
    return new Snapshot(version, configVersion, config, h, traffic, artifacts);
  }

  public Snapshot withTraffic(TrafficState t) {
    return new Snapshot(version, configVersion, config, health, t, artifacts);
  }

  Snapshot withVersion(long v) {
    return new Snapshot(v, configVersion, config, health, traffic, artifacts);
  }
}
