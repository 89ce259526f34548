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
        for (Consumer<Snapshot> l : listeners) {
          l.accept(versioned);
        }
        return versioned;
      }
    }
  }

  /** Called on the writer's thread after each published change; must not block. */
  public void addListener(Consumer<Snapshot> listener) {
    listeners.add(listener);
  }
}
