package io.sluice.core.history;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.state.Snapshot;
import java.io.IOException;
import java.util.Optional;

/** The states a node served earlier, rebuilt from its {@link StateHistory} ({@code ctl why}). */
public interface PastStates {

  /** No history (turned off). */
  PastStates NONE = millis -> Optional.empty();

  /**
   * The state in force at {@code millis}, or empty when the history does not reach back so far.
   *
   * @throws IOException when the configuration version it ran cannot be read
   * @throws ConfigException when that configuration can no longer be loaded
   */
  Optional<PastState> at(long millis) throws IOException, ConfigException;

  /**
   * One earlier state: in force since {@code sinceMillis}, snapshot version, configuration version
   * number, and the snapshot rebuilt from them (nothing built from the configuration yet).
   */
  record PastState(long sinceMillis, long snapshotVersion, long configVersion, Snapshot snapshot) {}

  /** Reads configuration version {@code n} as it was applied. */
  @FunctionalInterface
  interface Configs {
    SluiceConfig config(long n) throws IOException, ConfigException;
  }
}
