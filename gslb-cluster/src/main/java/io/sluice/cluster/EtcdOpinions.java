package io.sluice.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.sluice.core.health.Opinion;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.core.spi.Ticker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health opinions of a cluster on etcd: key {@code health/<endpoint>/<vantage>} holds one
 * vantage's opinion of one endpoint as JSON ({@code vantage, via, opinion, streak, pathOk, region,
 * rttMillis, sinceMillis}), attached to the lease of the node that publishes it, so a dead node's
 * opinions expire with its lease. A watch keeps an in-memory view of every node's opinions.
 *
 * <p>Writes are coalesced per key and sent in batches (one transaction of at most {@value #TXN_OPS}
 * keys), off the caller's thread. A periodic linearizable read tells whether etcd is reachable; on
 * reconnect the view is read again, this node's opinions that etcd lost (or that sit on an old
 * lease) are put again, and the watch restarts after the read. Nothing here runs on the query path.
 */
public final class EtcdOpinions implements OpinionExchange {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdOpinions.class);
  static final String PREFIX = "health/";
  // Below etcd's default --max-txn-ops (128).
  static final int TXN_OPS = 100;
  // Bursts (an outage seen by every check at once) are coalesced for this long into few txns.
  private static final long FLUSH_DELAY_MILLIS = 50;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The stored form of an opinion (the endpoint is in the key). */
  record Stored(
      String vantage,
      String via,
      Verdict opinion,
      int streak,
      boolean pathOk,
      String region,
      Double rttMillis,
      long sinceMillis) {}

  private final Client client;
  private final String node;
  private final LongSupplier lease;
  private final Duration timeout;
  private final Ticker ticker;
  private final ScheduledExecutorService exec;
  // What this node wants published, by key (touched from any thread).
  private final Map<String, Opinion> mine = new ConcurrentHashMap<>();
  // Keys waiting to be written: an opinion to put or null to delete (guarded by itself).
  private final Map<String, Opinion> pending = new LinkedHashMap<>();
  private final Map<String, Opinion> view = new ConcurrentHashMap<>();
  private final AtomicLong keyWrites = new AtomicLong();
  private final AtomicLong txns = new AtomicLong();
  private volatile Connection connection;
  private volatile Listener listener;
  private boolean flushScheduled;
  // Touched only on the exchange's thread.
  private boolean announced;
  private Watch.Watcher watcher;
  // Events of a watch replaced by a resync are dropped: they are older than its read.
  private volatile long generation;
  private volatile boolean closed;

  private EtcdOpinions(
      Client client, String node, LongSupplier lease, Duration timeout, Ticker ticker) {
    this.client = client;
    this.node = node;
    this.lease = lease;
    this.timeout = timeout;
    this.ticker = ticker;
    this.connection =
        new Connection(false, ticker.currentTimeMillis(), "not yet connected to etcd");
    this.exec =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-opinions");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * The opinions of node {@code node} on {@code client} (whose namespace is the cluster's prefix),
   * attached to the lease {@code lease} names at the time of each write (the node's lease, renewed
   * by its owner), with {@code timeout} on every etcd call.
   */
  public static EtcdOpinions create(
      Client client, String node, LongSupplier lease, Duration timeout, Ticker ticker) {
    return new EtcdOpinions(client, node, lease, timeout, ticker);
  }

  @Override
  public void start(Listener l) {
    this.listener = Objects.requireNonNull(l);
    exec.execute(this::resync);
    long every = Math.max(200, Math.min(1000, timeout.toMillis() / 2));
    exec.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public void publish(Opinion opinion) {
    mine.put(opinion.id(), opinion);
    enqueue(opinion.id(), opinion);
  }

  @Override
  public void withdraw(String endpoint, String vantage) {
    String id = endpoint + "/" + vantage;
    if (mine.remove(id) != null) {
      enqueue(id, null);
    }
  }

  @Override
  public Connection connection() {
    return connection;
  }

  /** Every opinion etcd holds now, this node's included, as the watch has seen them. */
  public Map<String, Opinion> view() {
    return Map.copyOf(view);
  }

  /** Keys written (put or deleted) so far: each is one modification in etcd. */
  public long keyWrites() {
    return keyWrites.get();
  }

  /** Transactions sent so far (each one etcd revision holding up to {@value #TXN_OPS} keys). */
  public long transactions() {
    return txns.get();
  }

  private void enqueue(String id, Opinion o) {
    synchronized (pending) {
      pending.put(id, o);
      if (flushScheduled || closed) {
        return;
      }
      flushScheduled = true;
    }
    exec.schedule(this::flush, FLUSH_DELAY_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Writes what is pending, in transactions of at most {@link #TXN_OPS} keys. */
  private void flush() {
    Map<String, Opinion> batch;
    synchronized (pending) {
      flushScheduled = false;
      batch = new LinkedHashMap<>(pending);
      pending.clear();
    }
    if (batch.isEmpty() || !connection.connected()) {
      // While cut off, the next resync writes whatever etcd lacks of this node's opinions.
      return;
    }
    List<Op> ops = new ArrayList<>(TXN_OPS);
    try {
      long leaseId = lease.getAsLong();
      for (Map.Entry<String, Opinion> e : batch.entrySet()) {
        ops.add(op(e.getKey(), e.getValue(), leaseId));
        if (ops.size() == TXN_OPS) {
          commit(ops);
          ops.clear();
        }
      }
      if (!ops.isEmpty()) {
        commit(ops);
      }
    } catch (ExecutionException | TimeoutException e) {
      lost("writing opinions failed: " + cause(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      lost("writing opinions failed: " + cause(e));
    }
  }

  private Op op(String id, Opinion o, long leaseId) throws ExecutionException {
    ByteSequence key = EtcdClients.bytes(PREFIX + id);
    if (o == null) {
      return Op.delete(key, DeleteOption.DEFAULT);
    }
    return Op.put(key, encode(o), PutOption.builder().withLeaseId(leaseId).build());
  }

  private void commit(List<Op> ops)
      throws ExecutionException, InterruptedException, TimeoutException {
    client
        .getKVClient()
        .txn()
        .Then(ops.toArray(Op[]::new))
        .commit()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    keyWrites.addAndGet(ops.size());
    txns.incrementAndGet();
  }

  /** While connected, a cheap linearizable read shows etcd still answers; while not, resyncs. */
  private void check() {
    if (closed) {
      return;
    }
    if (!connection.connected()) {
      resync();
      return;
    }
    try {
      client
          .getKVClient()
          .get(EtcdClients.bytes(PREFIX), GetOption.builder().withCountOnly(true).build())
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      lost("etcd does not answer: " + cause(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Reads every opinion, puts this node's that etcd lacks or holds differently (or on an old
   * lease), deletes this node's that it withdrew meanwhile, and watches from after the read.
   */
  private void resync() {
    if (closed) {
      return;
    }
    try {
      GetResponse r =
          client
              .getKVClient()
              .get(EtcdClients.bytes(PREFIX), GetOption.builder().isPrefix(true).build())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      Map<String, Opinion> read = new HashMap<>();
      Map<String, Long> leases = new HashMap<>();
      for (KeyValue kv : r.getKvs()) {
        Opinion o = decode(kv);
        if (o != null) {
          read.put(o.id(), o);
          leases.put(o.id(), kv.getLease());
        }
      }
      long leaseId = lease.getAsLong();
      synchronized (pending) {
        pending.clear();
      }
      List<Op> ops = new ArrayList<>();
      for (Opinion o : mine.values()) {
        Long held = leases.get(o.id());
        if (!o.equals(read.get(o.id())) || held == null || held != leaseId) {
          ops.add(op(o.id(), o, leaseId));
          read.put(o.id(), o);
        }
      }
      for (Opinion o : List.copyOf(read.values())) {
        if (node.equals(o.via()) && !mine.containsKey(o.id())) {
          ops.add(op(o.id(), null, leaseId));
          read.remove(o.id());
        }
      }
      for (int i = 0; i < ops.size(); i += TXN_OPS) {
        commit(ops.subList(i, Math.min(ops.size(), i + TXN_OPS)));
      }
      if (watcher != null) {
        watcher.close();
      }
      long gen = ++generation;
      view.clear();
      view.putAll(read);
      // The listener hears the whole view before any event of the new watch.
      listener.replaced(List.copyOf(read.values()));
      long from = r.getHeader().getRevision() + 1;
      watcher =
          client
              .getWatchClient()
              .watch(
                  EtcdClients.bytes(PREFIX),
                  WatchOption.builder().isPrefix(true).withRevision(from).build(),
                  Watch.listener(
                      resp -> onWatch(gen, resp),
                      t -> {
                        if (gen == generation && !closed) {
                          exec.execute(() -> lost("watch failed: " + cause(t)));
                        }
                      }));
      if (!connection.connected()) {
        LOG.info(
            "health opinions of {}: connected to etcd ({} opinions, {} of its own written again)",
            node,
            read.size(),
            ops.size());
      }
      setConnection(new Connection(true, ticker.currentTimeMillis(), null));
    } catch (ExecutionException | TimeoutException e) {
      lost("etcd does not answer: " + cause(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      lost(cause(e));
    }
  }

  private void onWatch(long gen, WatchResponse response) {
    if (gen != generation) {
      return;
    }
    Listener l = listener;
    for (WatchEvent ev : response.getEvents()) {
      String key = ev.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
      if (!key.startsWith(PREFIX)) {
        continue;
      }
      String id = key.substring(PREFIX.length());
      if (ev.getEventType() == WatchEvent.EventType.PUT) {
        Opinion o = decode(ev.getKeyValue());
        if (o != null) {
          view.put(id, o);
          l.changed(o);
        }
      } else if (ev.getEventType() == WatchEvent.EventType.DELETE) {
        view.remove(id);
        int slash = id.lastIndexOf('/');
        if (slash > 0) {
          l.removed(id.substring(0, slash), id.substring(slash + 1));
        }
      }
    }
  }

  private void lost(String reason) {
    if (connection.connected() || !announced) {
      LOG.warn("health opinions of {}: cut off from etcd ({}); verdicts are held", node, reason);
      setConnection(new Connection(false, ticker.currentTimeMillis(), reason));
    }
  }

  /** Records a new connection state and tells the listener when it changed (always the first). */
  private void setConnection(Connection c) {
    boolean changed = !announced || connection.connected() != c.connected();
    connection = c;
    announced = true;
    if (changed) {
      listener.connectionChanged(c);
    }
  }

  static ByteSequence encode(Opinion o) {
    try {
      Stored s =
          new Stored(
              o.vantage(),
              o.via(),
              o.opinion(),
              o.streak(),
              o.pathOk(),
              o.region(),
              Double.isFinite(o.rttMillis()) ? o.rttMillis() : null,
              o.sinceMillis());
      return ByteSequence.from(JSON.writeValueAsBytes(s));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The opinion stored in {@code kv}, or null (logged) when it cannot be read. */
  static Opinion decode(KeyValue kv) {
    String key = kv.getKey().toString(StandardCharsets.UTF_8);
    String id = key.startsWith(PREFIX) ? key.substring(PREFIX.length()) : key;
    int slash = id.lastIndexOf('/');
    try {
      Stored s = JSON.readValue(kv.getValue().getBytes(), Stored.class);
      if (slash <= 0 || s.opinion() == null || !id.substring(slash + 1).equals(s.vantage())) {
        throw new IllegalArgumentException("key and vantage do not match");
      }
      return new Opinion(
          id.substring(0, slash),
          s.vantage(),
          s.via(),
          s.opinion(),
          s.streak(),
          s.pathOk(),
          s.region(),
          s.rttMillis() == null ? Double.NaN : s.rttMillis(),
          s.sinceMillis());
    } catch (java.io.IOException | IllegalArgumentException e) {
      LOG.warn("health opinions: ignoring unreadable {}: {}", key, e.getMessage());
      return null;
    }
  }

  private static String cause(Throwable t) {
    Throwable c = t;
    while ((c instanceof ExecutionException || c.getCause() != null && c.getMessage() == null)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c instanceof TimeoutException
        ? "no answer within the timeout"
        : c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
  }

  @Override
  public void close() {
    closed = true;
    exec.shutdownNow();
    if (watcher != null) {
      watcher.close();
    }
  }
}
