package io.sluice.core.state;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Holds the current {@link Snapshot} behind one volatile reference. Readers load it without locks;
 * writers (probes, the traffic controller, reloads, the admin API) take turns, and every change
 * gets the next version number. Versions never go backwards for the life of a state directory: a
 * {@link VersionReserver} durably reserves them in blocks, and a restart resumes above the last
 * reserved block.
 */
public final class SnapshotStore {
  /** How many versions one durable reservation covers. */
  static final long VERSION_BLOCK = 1000;

  private static final System.Logger LOG = System.getLogger(SnapshotStore.class.getName());

  private volatile Snapshot current;
  // Writers only: a change may have to be made durable before it is published (see update).
  private final ReentrantLock writers = new ReentrantLock();
  private final List<Consumer<Snapshot>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<Snapshot>> preparers = new CopyOnWriteArrayList<>();
  private VersionReserver reserver;
  private long reservedThrough = Long.MAX_VALUE;

  public SnapshotStore(Snapshot initial) {
    this.current = initial;
  }

  /** Durably records that versions up to a number may have been handed out. */
  @FunctionalInterface
  public interface VersionReserver {
    /** Returns once versions up to {@code version} are reserved durably. */
    void reserveThrough(long version) throws IOException;
  }

  /** A step that must succeed before a change is published (making it durable, for one). */
  @FunctionalInterface
  public interface BeforePublish<E extends Exception> {
    /** Runs with the versioned snapshot about to be published; throwing publishes nothing. */
    void accept(Snapshot next) throws E;
  }

  /** The current snapshot: one volatile read. */
  public Snapshot current() {
    return current;
  }

  /**
   * Resumes versions above {@code reserved} (the last durable reservation of an earlier run) and
   * reserves further blocks through {@code reserver} as versions are handed out.
   */
  public void resumeVersions(long reserved, VersionReserver reserver) {
    writers.lock();
    try {
      Snapshot s = current;
      if (s.version() < reserved) {
        current = s.withVersion(reserved);
      }
      this.reserver = reserver;
      this.reservedThrough = current.version();
    } finally {
      writers.unlock();
    }
  }

  /**
   * Applies {@code change} to the current snapshot and publishes the result with the next version.
   * Returns the published snapshot; when the function returns its input unchanged nothing is
   * published and the current snapshot is returned.
   */
  public Snapshot update(UnaryOperator<Snapshot> change) {
    return update(change, next -> {});
  }

  /**
   * Like {@link #update(UnaryOperator)}, but runs {@code beforePublish} with the versioned result
   * first: when it throws, nothing is published. The traffic state writer makes a change durable
   * and audited this way, so that no answer ever follows a change that could still be lost.
   */
  public <E extends Exception> Snapshot update(
      UnaryOperator<Snapshot> change, BeforePublish<E> beforePublish) throws E {
    Snapshot versioned;
    writers.lock();
    try {
      Snapshot prev = current;
      Snapshot next = change.apply(prev);
      if (next == prev) {
        return prev;
      }
      versioned = next.withVersion(prev.version() + 1);
      prepare(versioned);
      reserve(versioned.version());
      beforePublish.accept(versioned);
      current = versioned;
    } finally {
      writers.unlock();
    }
    notifyListeners(versioned);
    return versioned;
  }

  /**
   * Runs every preparer on {@code next} before it is published; one that throws is logged and the
   * snapshot published all the same (a preparer only makes work the query path would otherwise do).
   */
  private void prepare(Snapshot next) {
    for (Consumer<Snapshot> p : preparers) {
      try {
        p.accept(next);
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.ERROR,
            "a snapshot preparer failed on version " + next.version(),
            e);
      }
    }
  }

  /**
   * Adds {@code preparer}, called on the writer's thread with every snapshot before it is
   * published, while queries still read the previous one: work the new snapshot needs ready (such
   * as signing the answers it may give) is done there instead of on the query path. It must not
   * block on anything but CPU.
   */
  public void addPreparer(Consumer<Snapshot> preparer) {
    preparers.add(preparer);
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

  private void reserve(long version) {
    if (reserver == null || version <= reservedThrough) {
      return;
    }
    try {
      // Rare (once per block) and on a writer thread, never on the query path.
      reserver.reserveThrough(version + VERSION_BLOCK - 1);
      reservedThrough = version + VERSION_BLOCK - 1;
    } catch (IOException e) {
      // Answers must keep following health and commands; retried with the next version.
      LOG.log(
          System.Logger.Level.ERROR,
          "cannot reserve snapshot versions; after a restart versions may repeat: " + e);
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
