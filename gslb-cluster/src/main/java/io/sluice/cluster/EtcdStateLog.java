package io.sluice.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.store.ClusterUnreachableException;
import io.sluice.core.store.SharedStateLog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The cluster's shared operator state on etcd: one key, {@code state} (under the cluster's prefix),
 * holding the whole newest record; its mod revision is the record's revision. A commit is one
 * transaction {@code If(mod_revision(state) == expected [&& value(leader) == this node]) Then(put
 * state) Else(get state, get leader)}, so two nodes changing the state at once never lose either
 * change: the second one conflicts, adopts the first and tries again. Every call records whether
 * etcd answered, which is this node's view of its connectivity.
 */
public final class EtcdStateLog implements SharedStateLog {
  private static final System.Logger LOG = System.getLogger(EtcdStateLog.class.getName());

  /** The key of the shared state, under the cluster's prefix. */
  public static final String STATE_KEY = "state";

  /** The key holding the name of the leading node (written by the leader election). */
  public static final String LEADER_KEY = "leader";

  // How soon a watch that failed for another reason than compaction is opened again.
  private static final Duration REWATCH = Duration.ofSeconds(1);

  private static final ByteSequence STATE = EtcdClients.bytes(STATE_KEY);
  private static final ByteSequence LEADER = EtcdClients.bytes(LEADER_KEY);

  private final Client client;
  private final String node;
  private final String where;
  private final Duration timeout;
  private final ScheduledExecutorService rewatch;
  private volatile Connectivity connectivity;

  private EtcdStateLog(Client client, String node, String where, Duration timeout) {
    this.client = client;
    this.node = node;
    this.where = where;
    this.timeout = timeout;
    this.connectivity = new Connectivity(false, "not contacted yet", System.currentTimeMillis());
    this.rewatch =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-etcd-rewatch");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * The shared state of {@code config}'s cluster through {@code client} (made by {@link
   * EtcdClients#create}); the client stays the caller's to close.
   */
  public static EtcdStateLog open(Client client, SluiceConfig config) {
    ClusterConfig cluster = config.cluster();
    return new EtcdStateLog(
        client,
        cluster.node(),
        "etcd at " + String.join(",", cluster.etcd().endpoints()) + ", prefix " + cluster.prefix(),
        cluster.etcd().timeout());
  }

  @Override
  public Optional<Entry> latest() {
    GetResponse r = call("reading the shared state", client.getKVClient().get(STATE));
    List<KeyValue> kvs = r.getKvs();
    return kvs.isEmpty() ? Optional.empty() : Optional.of(entry(kvs.get(0)));
  }

  @Override
  public long latestRevision() {
    GetResponse r =
        call(
            "reading the shared state's revision",
            client.getKVClient().get(STATE, GetOption.builder().withKeysOnly(true).build()));
    return r.getKvs().isEmpty() ? 0 : r.getKvs().get(0).getModRevision();
  }

  @Override
  public Commit commitIf(long expectedRevision, byte[] bytes, boolean controllerStep) {
    Cmp unchanged = new Cmp(STATE, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedRevision));
    Cmp[] guard =
        controllerStep
            ? new Cmp[] {
              unchanged, new Cmp(LEADER, Cmp.Op.EQUAL, CmpTarget.value(EtcdClients.bytes(node)))
            }
            : new Cmp[] {unchanged};
    CompletableFuture<TxnResponse> txn =
        client
            .getKVClient()
            .txn()
            .If(guard)
            .Then(Op.put(STATE, ByteSequence.from(bytes), PutOption.DEFAULT))
            .Else(Op.get(STATE, GetOption.DEFAULT), Op.get(LEADER, GetOption.DEFAULT))
            .commit();
    TxnResponse r = call("committing to the shared state", txn);
    if (r.isSucceeded()) {
      return new Committed(r.getHeader().getRevision());
    }
    List<KeyValue> state = r.getGetResponses().get(0).getKvs();
    List<KeyValue> leader = r.getGetResponses().get(1).getKvs();
    Entry latest = state.isEmpty() ? null : entry(state.get(0));
    long now = latest == null ? 0 : latest.revision();
    if (controllerStep && now == expectedRevision) {
      return new NotLeader(
          leader.isEmpty() ? null : leader.get(0).getValue().toString(StandardCharsets.UTF_8));
    }
    return new Conflict(latest);
  }

  @Override
  public AutoCloseable watch(long afterRevision, Listener listener) {
    Following f = new Following(listener, afterRevision);
    f.open();
    return f;
  }

  /**
   * One watch of the state key that resumes after the last record it reported when etcd ends it for
   * another reason than compaction (which it reports to the listener instead).
   */
  private final class Following implements AutoCloseable {
    private final Listener listener;
    private volatile long last;
    private volatile Watch.Watcher watcher;
    private volatile boolean closed;

    Following(Listener listener, long after) {
      this.listener = listener;
      this.last = after;
    }

    synchronized void open() {
      if (closed) {
        return;
      }
      watcher =
          client
              .getWatchClient()
              .watch(
                  STATE,
                  WatchOption.builder().withRevision(last + 1).build(),
                  Watch.listener(
                      response -> {
                        for (WatchEvent e : response.getEvents()) {
                          if (e.getEventType() == WatchEvent.EventType.PUT) {
                            Entry entry = entry(e.getKeyValue());
                            last = entry.revision();
                            listener.entry(entry);
                          }
                        }
                      },
                      this::failed));
    }

    private void failed(Throwable t) {
      if (closed) {
        return;
      }
      if (t instanceof CompactedException c) {
        listener.compacted(c.getCompactedRevision());
        return;
      }
      LOG.log(System.Logger.Level.DEBUG, "watch of the shared state ended: {0}", t.toString());
      try {
        rewatch.schedule(
            () -> {
              Watch.Watcher w = watcher;
              if (!closed && (w == null || w.isClosed())) {
                open();
              }
            },
            REWATCH.toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // The log is closing.
      }
    }

    @Override
    public synchronized void close() {
      closed = true;
      if (watcher != null) {
        watcher.close();
      }
    }
  }

  @Override
  public Connectivity connectivity() {
    return connectivity;
  }

  @Override
  public String describe() {
    return where;
  }

  @Override
  public String node() {
    return node;
  }

  @Override
  public void close() {
    rewatch.shutdownNow();
  }

  private static Entry entry(KeyValue kv) {
    return new Entry(kv.getModRevision(), kv.getValue().getBytes());
  }

  /**
   * Waits for {@code call} at most the configured etcd timeout; records whether etcd answered.
   *
   * @throws ClusterUnreachableException when it did not
   */
  private <T> T call(String what, CompletableFuture<T> call) {
    try {
      T result = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!connectivity.connected()) {
        connectivity = new Connectivity(true, null, System.currentTimeMillis());
      }
      return result;
    } catch (TimeoutException e) {
      call.cancel(true);
      throw unreachable(
          what,
          "no answer within "
              + timeout.toMillis()
              + " ms (is a majority of the etcd members up and reachable?)",
          e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw unreachable(what, String.valueOf(cause.getMessage()), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(what, "interrupted", e);
    }
  }

  private ClusterUnreachableException unreachable(String what, String reason, Throwable cause) {
    Connectivity was = connectivity;
    String problem = what + ": " + reason;
    connectivity =
        new Connectivity(
            false, problem, was.connected() ? System.currentTimeMillis() : was.sinceMillis());
    return ClusterUnreachableException.of(
        where,
        problem,
        what.startsWith("committing")
            ? "the change may or may not be committed: once etcd answers again, every node"
                + " applies it if it is"
            : "nothing was changed",
        cause);
  }
}
