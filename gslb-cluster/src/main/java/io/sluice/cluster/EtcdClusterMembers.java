package io.sluice.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.sluice.core.spi.ClusterMembers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The cluster's nodes from the registry ({@code nodes/}), kept in a cache by a watch: {@link
 * #members()} never waits for etcd. A node whose entry vanished (its lease expired) stays listed as
 * not live, since its last heartbeat, for {@link #FORGET_AFTER}, so that on-call sees which node
 * went. While this node is cut off from etcd, every other entry is as of its last contact and shown
 * as not live.
 */
public final class EtcdClusterMembers implements ClusterMembers, AutoCloseable {
  /** How long a departed node stays listed (not live). */
  static final Duration FORGET_AFTER = Duration.ofMinutes(15);

  /** The key of the shared traffic state, whose revision members' lag is measured against. */
  static final String STATE_KEY = "state";

  private static final System.Logger LOG = System.getLogger(EtcdClusterMembers.class.getName());
  private static final ByteSequence PREFIX = EtcdClients.bytes(NodeRegistry.PREFIX);

  /** A registry entry as last seen, and when it vanished (0 while present). */
  private record Seen(NodeRegistry.Entry entry, long goneMillis) {}

  private final Client client;
  private final NodeLease lease;
  private final String self;
  private final Supplier<Optional<String>> leader;
  private final LongSupplier appliedRevision;
  private final Duration timeout;
  private final Map<String, Seen> seen = new ConcurrentHashMap<>();
  private final ScheduledExecutorService executor;
  private volatile Watch.Watcher watcher;
  private volatile boolean resync = true;
  private volatile long sharedRevision;
  private volatile boolean closed;

  private EtcdClusterMembers(
      Client client,
      NodeLease lease,
      String self,
      Supplier<Optional<String>> leader,
      LongSupplier appliedRevision,
      Duration timeout) {
    this.client = client;
    this.lease = lease;
    this.self = self;
    this.leader = leader;
    this.appliedRevision = appliedRevision;
    this.timeout = timeout;
    this.executor = Daemons.single("sluice-cluster-members");
  }

  /**
   * Lists the registry for node {@code self}: reads it, then follows it by watch; reads the shared
   * state's revision every second. {@code leader} names the leader (the election's view), {@code
   * appliedRevision} is this node's own applied revision, fresher than its entry.
   */
  public static EtcdClusterMembers start(
      Client client,
      NodeLease lease,
      String self,
      Supplier<Optional<String>> leader,
      LongSupplier appliedRevision,
      Duration timeout) {
    EtcdClusterMembers m =
        new EtcdClusterMembers(client, lease, self, leader, appliedRevision, timeout);
    m.executor.execute(m::refresh);
    m.executor.scheduleWithFixedDelay(m::refresh, 1, 1, TimeUnit.SECONDS);
    return m;
  }

  @Override
  public List<Member> members() {
    boolean connected = connected();
    String leads = leader.get().orElse(null);
    long now = System.currentTimeMillis();
    List<Member> out = new ArrayList<>();
    for (Seen s : seen.values()) {
      NodeRegistry.Entry e = s.entry();
      if (s.goneMillis() > 0 && now - s.goneMillis() > FORGET_AFTER.toMillis()) {
        continue;
      }
      boolean mine = e.node().equals(self);
      out.add(
          new Member(
              e.node(),
              e.region(),
              e.dns(),
              e.admin(),
              e.node().equals(leads),
              mine ? appliedRevision.getAsLong() : e.appliedRevision(),
              connected && s.goneMillis() == 0,
              mine ? lease.lastKeepAliveMillis() : e.heartbeatMillis()));
    }
    out.sort(Comparator.comparing(Member::node));
    return out;
  }

  @Override
  public Optional<String> self() {
    return Optional.of(self);
  }

  @Override
  public long sharedRevision() {
    return sharedRevision;
  }

  @Override
  public boolean connected() {
    return lease.alive();
  }

  @Override
  public long lastContactMillis() {
    return lease.lastKeepAliveMillis();
  }

  @Override
  public void close() {
    closed = true;
    if (watcher != null) {
      watcher.close();
    }
    executor.shutdownNow();
  }

  /** Reads the state's revision; (re)reads the registry and watches it when needed. */
  private void refresh() {
    try {
      GetResponse state =
          client
              .getKVClient()
              .get(EtcdClients.bytes(STATE_KEY), GetOption.builder().withKeysOnly(true).build())
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      sharedRevision = state.getKvs().isEmpty() ? 0 : state.getKvs().get(0).getModRevision();
      if (resync) {
        sync();
      }
    } catch (ExecutionException | TimeoutException e) {
      // Cut off: the cache stays as of the last contact; connected() says so.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "reading the node registry failed", e);
    }
  }

  /** Reads every entry, then watches for changes after that read. */
  private void sync() throws ExecutionException, InterruptedException, TimeoutException {
    GetResponse r =
        client
            .getKVClient()
            .get(PREFIX, GetOption.builder().isPrefix(true).build())
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    long now = System.currentTimeMillis();
    List<String> present = new ArrayList<>();
    for (KeyValue kv : r.getKvs()) {
      NodeRegistry.Entry e = decode(kv);
      if (e != null) {
        seen.put(e.node(), new Seen(e, 0));
        present.add(e.node());
      }
    }
    seen.replaceAll(
        (n, s) -> present.contains(n) || s.goneMillis() > 0 ? s : new Seen(s.entry(), now));
    if (watcher != null) {
      watcher.close();
    }
    watcher =
        client
            .getWatchClient()
            .watch(
                PREFIX,
                WatchOption.builder()
                    .isPrefix(true)
                    .withRevision(r.getHeader().getRevision() + 1)
                    .build(),
                Watch.listener(
                    this::changed,
                    e -> {
                      // Watch given up (a compacted revision, say): read everything again.
                      if (!closed) {
                        resync = true;
                      }
                    }));
    resync = false;
  }

  private void changed(WatchResponse r) {
    for (WatchEvent ev : r.getEvents()) {
      String key = ev.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
      String node = key.substring(key.lastIndexOf('/') + 1);
      if (ev.getEventType() == WatchEvent.EventType.DELETE) {
        seen.computeIfPresent(node, (n, s) -> new Seen(s.entry(), System.currentTimeMillis()));
      } else if (ev.getEventType() == WatchEvent.EventType.PUT) {
        NodeRegistry.Entry e = decode(ev.getKeyValue());
        if (e != null) {
          seen.put(e.node(), new Seen(e, 0));
        }
      }
    }
  }

  private static NodeRegistry.Entry decode(KeyValue kv) {
    try {
      return NodeRegistry.Entry.decode(kv.getValue());
    } catch (IOException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "ignoring an unreadable registry entry {0}: {1}",
          kv.getKey().toString(StandardCharsets.UTF_8),
          e.getMessage());
      return null;
    }
  }
}
