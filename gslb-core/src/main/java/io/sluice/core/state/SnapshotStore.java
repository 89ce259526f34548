package io.sluice.core.state;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Holds the current {@link Snapshot} behind one atomic reference. Readers load it without locks;
 * writers (probes, the traffic controller, reloads, the admin API) apply a change function that is
 * retried on contention, and every successful change gets the next version number.
 */
public final class SnapshotStore {
  private static final System.Logger LOG = System.getLogger(SnapshotStore.class.getName());
  private final AtomicReference<Snapshot> current;
  private final List<Consumer<Snapshot>> listeners = new CopyOnWriteArrayList<>();

  public SnapshotStore(Snapshot initial) {
    this.current = new AtomicReference<>(initial);
  }

  /** The current snapshot: one volatile read. */
  public Snapshot current() {
    return current.get();
  }

  /**
   * Applies {@code change} to the current snapshot and publishes the result with the next version.
   * The function may run more than once under contention, so it must be free of side effects.
   * Returns the published snapshot; when the function returns its input unchanged nothing is
   * published and the current snapshot is returned.
   */
  public Snapshot update(UnaryOperator<Snapshot> change) {
    while (true) {
      Snapshot prev = current.get();
      Snapshot next = change.apply(prev);
      if (next == prev) {
        return prev;
      }
      Snapshot versioned = next.withVersion(prev.version() + 1);
      if (current.compareAndSet(prev, versioned)) {
        notifyListeners(versioned);
        return versioned;
      }
    }
  }

  /**
   * Runs every listener, even when one throws: the snapshot is already published whole, so a
   * failing listener must neither hide it from the others nor make its writer report a change that
   * did happen as failed.
   */
  private void notifyListeners(Snapshot published) {
    for (Consumer<Snapshot> l : listeners) {
      try {
        l.accept(published);
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.ERROR,
            "a snapshot listener failed on version " + published.version(),
            e);
      }
    }
  }

  /**
   * Called on the writer's thread after each published change; must not block. It only follows what
   * was published: anything that could reject a configuration belongs in a {@link ConfigCompiler},
   * which runs before the swap.
   */
  public void addListener(Consumer<Snapshot> listener) {
    listeners.add(listener);
  }
}
