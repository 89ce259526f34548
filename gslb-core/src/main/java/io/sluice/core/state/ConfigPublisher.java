package io.sluice.core.state;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import java.io.IOException;
import java.util.List;

/**
 * The one path a configuration takes to be served, at start and on every reload: every module's
 * {@link ConfigCompiler} builds its share off the query path, each exactly once, and only when all
 * of them succeeded is the configuration published together with what was built, by one reference
 * swap in the {@link SnapshotStore}. A query therefore answers either wholly from the old state or
 * wholly from the new one; a failed build publishes nothing and the old state keeps serving.
 */
public final class ConfigPublisher {
  private final List<ConfigCompiler> compilers;

  /** A publisher running {@code compilers} in this order. */
  public ConfigPublisher(List<ConfigCompiler> compilers) {
    this.compilers = List.copyOf(compilers);
  }

  /**
   * Builds every artifact of {@code config} (named {@code source} in errors) without publishing
   * anything. A compiler that fails with an unexpected exception or error, running out of heap
   * included, rejects the configuration too, reported as a problem of {@code source}, so the caller
   * always gets one clear error and the running configuration stays served.
   */
  public ConfigArtifacts build(SluiceConfig config, String source, Snapshot running)
      throws ConfigException {
    ConfigArtifacts.Builder out = ConfigArtifacts.builder();
    for (ConfigCompiler c : compilers) {
      try {
        c.compile(config, source, running, out);
      } catch (OutOfMemoryError e) {
        // The half-built artifacts are unreachable once this frame is left, so the heap is free
        // again for the running configuration, which keeps serving: a reload too big for the
        // heap is one more rejected reload (logged, counted, answered to the API), not a signal
        // or command thread dying with the error while the caller waits for an answer.
        throw new ConfigException(
            source,
            "",
            "there is not enough memory to build the configuration beside the running one ("
                + e.getMessage()
                + "); the running configuration is kept. Raise the heap cap (-Xmx, SLUICE_HEAP"
                + " with the sluice launcher) or make the configuration smaller");
      } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
        throw new ConfigException(
            source,
            "",
            "the configuration could not be built for serving ("
                + e
                + "); the running configuration is kept");
      }
    }
    return out.build();
  }

  /** The first snapshot of a process: {@code config} with everything built from it. */
  public Snapshot initial(SluiceConfig config, String source) throws ConfigException {
    Snapshot bare = Snapshot.initial(config);
    return Snapshot.initial(config, build(config, source, bare));
  }

  /**
   * Builds everything {@code config} needs, then publishes it in {@code store} with one swap;
   * returns the published snapshot. Health and traffic state written meanwhile by other writers are
   * kept: the swap only replaces the configuration and its artifacts.
   *
   * @throws ConfigException when any part cannot be built; nothing is published then
   */
  public Snapshot publish(SnapshotStore store, SluiceConfig config, String source)
      throws ConfigException {
    ConfigArtifacts built = build(config, source, store.current());
    return store.update(s -> s.withConfig(config, built));
  }

  /**
   * Like {@link #publish(SnapshotStore, SluiceConfig, String)}, running {@code beforeSwap} after
   * everything was built and before the swap: a configuration is recorded in the history only once
   * it is known to build, and served only once it is recorded.
   *
   * @throws IOException from {@code beforeSwap}; nothing is published then
   */
  public Snapshot publish(
      SnapshotStore store, SluiceConfig config, String source, BeforeSwap beforeSwap)
      throws ConfigException, IOException {
    ConfigArtifacts built = build(config, source, store.current());
    beforeSwap.run();
    return store.update(s -> s.withConfig(config, built));
  }

  /** Runs between building a configuration and publishing it (records it in the history). */
  @FunctionalInterface
  public interface BeforeSwap {
    /** Nothing is published when this throws. */
    void run() throws IOException;
  }
}
