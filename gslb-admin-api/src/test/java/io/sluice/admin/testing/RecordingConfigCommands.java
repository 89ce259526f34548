package io.sluice.admin.testing;

import io.sluice.core.config.history.BlobCache;
import io.sluice.core.config.history.ConfigSource;
import io.sluice.core.config.history.ConfigVersion;
import io.sluice.core.config.history.FileConfigStore;
import io.sluice.core.control.Actor;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ConfigCommands;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * Configuration commands that record versions in a real state-directory history without a node to
 * apply them: for tests of the routes themselves (roles, documentation), starting with version 1.
 */
public final class RecordingConfigCommands implements ConfigCommands {
  private final FileConfigStore store;

  /** A history in {@code stateDir}, holding version 1. */
  public RecordingConfigCommands(Path stateDir) throws IOException {
    this(stateDir, "zones: []\n");
  }

  /** A history in {@code stateDir} whose version 1 is {@code yaml}. */
  public RecordingConfigCommands(Path stateDir, String yaml) throws IOException {
    this.store = FileConfigStore.open(stateDir);
    if (store.current().isEmpty()) {
      store.append(
          ConfigVersion.draft(
              yaml, Map.of(), "test", "system", ConfigSource.START, "start", 0L, null),
          0);
    }
  }

  private long current() throws IOException {
    return store.current().map(ConfigVersion::version).orElse(0L);
  }

  @Override
  public synchronized CommandResult push(
      Actor actor, String yaml, Map<String, String> files, String reason) throws IOException {
    ConfigVersion v =
        store.append(
            ConfigVersion.draft(
                yaml, files, actor.name(), actor.role(), ConfigSource.PUSH, reason, 0L, null),
            current());
    return new CommandResult(0, true, "recorded version " + v.version());
  }

  @Override
  public synchronized CommandResult rollback(Actor actor, long version, String reason)
      throws IOException {
    ConfigVersion old =
        store.version(version).orElseThrow(() -> new NoSuchElementException("not kept"));
    ConfigVersion v =
        store.append(
            ConfigVersion.draft(
                old.yaml(),
                old.files(),
                actor.name(),
                actor.role(),
                ConfigSource.ROLLBACK,
                reason,
                0L,
                version),
            current());
    return new CommandResult(0, true, "recorded version " + v.version());
  }

  @Override
  public History history() throws IOException {
    return new History(current(), current(), store.versions());
  }

  @Override
  public Optional<ConfigVersion> version(long n) throws IOException {
    return store.version(n);
  }

  @Override
  public BlobCache blobs() {
    return store.blobs();
  }
}
