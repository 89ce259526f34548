package io.sluice.core.store;

import java.io.Closeable;
import java.util.Optional;

/**
 * The shared register of whole-state records of a cluster (etcd's {@code state} key): every node
 * reads the newest record, commits the next one only if nobody committed another since the one it
 * read (compare-and-put on the store's revision), and hears every record committed by the others. A
 * node's own {@link DurableLog} stays its local cache of the last record it applied.
 */
public interface SharedStateLog extends Closeable {

  /** One committed record and the store revision it was committed at (above 0). */
  record Entry(long revision, byte[] bytes) {}

  /** What became of a {@link #commitIf}. */
  sealed interface Commit permits Committed, Conflict, NotLeader {}

  /** The record is the newest one now, at {@code revision}. */
  record Committed(long revision) implements Commit {}

  /** Another record was committed first; {@code latest} is the newest (null if none). */
  record Conflict(Entry latest) implements Commit {}

  /** A controller step, refused because this node does not hold the leader key. */
  record NotLeader(String leader) implements Commit {}

  /** Whether the shared store answered the last call, why not, and since when (epoch millis). */
  record Connectivity(boolean connected, String problem, long sinceMillis) {}

  /** Hears records committed after a given revision, in revision order. */
  interface Listener {
    /** A record newer than the last one heard. */
    void entry(Entry e);

    /**
     * The store no longer holds the records after the revision asked for (compacted up to {@code
     * compactedRevision}): the listener catches up with {@link #latest()} instead.
     */
    void compacted(long compactedRevision);
  }

  /** The newest record (a linearizable read), or empty when none was ever committed. */
  Optional<Entry> latest();

  /** The revision of the newest record without its bytes (0 when none), linearizable. */
  long latestRevision();

  /**
   * Commits {@code bytes} as the newest record if the newest one is still at {@code
   * expectedRevision} (0: no record yet) and, for a {@code controllerStep}, this node holds the
   * leader key.
   *
   * @throws ClusterUnreachableException when the store cannot be reached: the record may or may not
   *     have been committed, which the next {@link #latest()} tells
   */
  Commit commitIf(long expectedRevision, byte[] bytes, boolean controllerStep);

  /**
   * Calls {@code listener} (on a thread of the log) for every record committed after {@code
   * afterRevision} until the returned handle is closed.
   */
  AutoCloseable watch(long afterRevision, Listener listener);

  /** Whether the last call reached the store. */
  Connectivity connectivity();

  /** Where the store is, for operators' messages (the etcd endpoints). */
  String describe();

  /** This node's name, as records name their origin. */
  String node();

  @Override
  void close();
}
