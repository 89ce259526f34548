package io.sluice.core.testing;

import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.store.SharedStateLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shared store of a cluster in memory, with the same contract as etcd's {@code state} key: a
 * global revision raised by every commit, compare-and-put against it, the leader key, history for
 * watches from a past revision (until compacted), and per-node cuts. {@link #node} gives each node
 * its {@link SharedStateLog}.
 */
public final class MemorySharedState {
  private long revision;
  private final List<SharedStateLog.Entry> history = new ArrayList<>();
  private long compactedThrough;
  private String leader;
  private final List<Watcher> watchers = new ArrayList<>();

  private record Watcher(Node node, SharedStateLog.Listener listener) {}

  /** The log through which node {@code name} reaches this store. */
  public Node node(String name) {
    return new Node(name);
  }

  /** Sets the node holding the leader key (null: nobody). */
  public synchronized void leader(String node) {
    this.leader = node;
  }

  /** Drops the history up to the newest record, as etcd's compaction does. */
  public synchronized void compact() {
    compactedThrough = revision;
  }

  /** The newest record, or null. */
  public synchronized SharedStateLog.Entry newest() {
    return history.isEmpty() ? null : history.get(history.size() - 1);
  }

  /** One node's view of the store: cut off or not, hearing commits or (paused) not. */
  public final class Node implements SharedStateLog {
    private final String name;
    private volatile String cut;
    private volatile long cutSince;
    private volatile boolean deaf;
    // Set by a cut, kept after restore() until the next successful call: like a real client,
    // whose connectivity reflects its last call.
    private volatile String lastFailure;
    private volatile boolean loseNextAnswer;
    private volatile int commits;
    private volatile int cutAfter;
    private volatile String cutAfterReason;

    private Node(String name) {
      this.name = name;
    }

    /** Cuts this node off the store for {@code reason} until {@link #restore()}. */
    public void cut(String reason) {
      cut = reason;
      cutSince = System.currentTimeMillis();
    }

    /** Ends a cut. */
    public void restore() {
      cut = null;
      cutSince = System.currentTimeMillis();
    }

    /** While true, this node's watches hear nothing (its view goes stale without a cut). */
    public void deaf(boolean d) {
      deaf = d;
    }

    /** The next commit lands in the store but its answer is lost, as when the node dies then. */
    public void loseNextAnswer() {
      loseNextAnswer = true;
    }

    /** Cuts this node off for {@code reason} right after its next {@code n} commits. */
    public void cutAfter(int n, String reason) {
      cutAfter = n;
      cutAfterReason = reason;
    }

    /** How many commits this node attempted. */
    public int commits() {
      return commits;
    }

    private void reach() {
      String c = cut;
      if (c != null) {
        lastFailure = c;
        throw ClusterUnreachableException.of(
            describe(), c, "the command was not applied on any node", null);
      }
      lastFailure = null;
    }

    /**
     * Ends a cut without telling: connectivity keeps reporting the last failure until a call
     * reaches the store, as it does between a real client's failed call and its next one.
     */
    public void restoreQuietly() {
      String c = cut;
      cut = null;
      lastFailure = c;
    }

    @Override
    public Optional<Entry> latest() {
      reach();
      return Optional.ofNullable(newest());
    }

    @Override
    public long latestRevision() {
      reach();
      Entry e = newest();
      return e == null ? 0 : e.revision();
    }

    @Override
    public Commit commitIf(long expectedRevision, byte[] bytes, boolean controllerStep) {
      reach();
      commits++;
      Entry committed;
      List<Watcher> tell;
      synchronized (MemorySharedState.this) {
        Entry now = newest();
        long current = now == null ? 0 : now.revision();
        if (current != expectedRevision) {
          return new Conflict(now);
        }
        if (controllerStep && !name.equals(leader)) {
          return new NotLeader(leader);
        }
        revision++;
        committed = new Entry(revision, bytes.clone());
        history.add(committed);
        tell = List.copyOf(watchers);
      }
      for (Watcher w : tell) {
        if (!w.node().deaf && w.node().cut == null) {
          w.listener().entry(committed);
        }
      }
      if (cutAfter > 0 && --cutAfter == 0) {
        cut(cutAfterReason);
      }
      if (loseNextAnswer) {
        loseNextAnswer = false;
        throw ClusterUnreachableException.of(
            describe(), "no answer", "the outcome is unknown until the store answers", null);
      }
      return new Committed(committed.revision());
    }

    @Override
    public AutoCloseable watch(long afterRevision, Listener listener) {
      Watcher w = new Watcher(this, listener);
      List<Entry> past;
      synchronized (MemorySharedState.this) {
        if (afterRevision < compactedThrough && newest() != null) {
          listener.compacted(compactedThrough);
          return () -> {};
        }
        past = history.stream().filter(e -> e.revision() > afterRevision).toList();
        watchers.add(w);
      }
      for (Entry e : past) {
        listener.entry(e);
      }
      return () -> {
        synchronized (MemorySharedState.this) {
          watchers.remove(w);
        }
      };
    }

    @Override
    public Connectivity connectivity() {
      String c = cut != null ? cut : lastFailure;
      return new Connectivity(c == null, c, cutSince);
    }

    @Override
    public String describe() {
      return "etcd at memory://test";
    }

    @Override
    public String node() {
      return name;
    }

    @Override
    public void close() {}
  }
}
