package io.sluice.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.sluice.core.spi.Leadership;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The leader election of a cluster on etcd: the leader is the node whose name the key {@code
 * leader} holds, put with its {@link NodeLease} only while the key is absent. Every node watches
 * the key and campaigns again the moment it disappears (the leader stopped, or its lease expired
 * within its TTL), so a follower takes over within the lease TTL.
 *
 * <p>Before this node reports that it {@link #leads()}, it runs the catch-up it was given (a
 * linearizable read of the shared traffic state), so its first automatic step starts from the state
 * the previous leader left. It stops leading at once when its lease may have expired (no keep-alive
 * acknowledged in time), before etcd hands the key to another node.
 */
public final class EtcdLeadership implements Leadership, AutoCloseable {
  /** The key that names the leader. */
  public static final String KEY = "leader";

  private static final System.Logger LOG = System.getLogger(EtcdLeadership.class.getName());
  private static final ByteSequence LEADER = EtcdClients.bytes(KEY);

  private final Client client;
  private final NodeLease lease;
  private final String node;
  private final Runnable catchUp;
  private final Duration timeout;
  private final ScheduledExecutorService executor;
  private volatile Watch.Watcher watcher;
  // True from the end of the catch-up until the key is lost; leads() also asks the lease.
  private volatile boolean leading;
  private volatile long leadingLease;
  private volatile String leader;
  private volatile boolean closed;
  // After a failed catch-up, this node stands aside until then so that another node can lead.
  private long standAsideUntilNanos;

  private EtcdLeadership(
      Client client, NodeLease lease, String node, Runnable catchUp, Duration timeout) {
    this.client = client;
    this.lease = lease;
    this.node = node;
    this.catchUp = catchUp;
    this.timeout = timeout;
    this.executor = Daemons.single("sluice-leader");
  }

  /**
   * Joins the election as {@code node} with {@code lease}: watches the key, campaigns now and
   * whenever the key disappears. {@code catchUp} runs on every win before {@link #leads()} turns
   * true; when it throws, this node gives the key up and campaigns again later.
   */
  public static EtcdLeadership start(
      Client client, NodeLease lease, String node, Runnable catchUp, Duration timeout) {
    EtcdLeadership l = new EtcdLeadership(client, lease, node, catchUp, timeout);
    lease.addListener(
        new NodeLease.Listener() {
          @Override
          public void granted(long id) {
            l.submit(l::campaign);
          }

          @Override
          public void lost(long id) {
            l.stepDown("the node lease may have expired");
          }
        });
    l.watch();
    l.submit(l::campaign);
    // A missed watch event (a long cut, a compacted revision) must not leave the key unclaimed.
    long period = Math.max(1000, lease.ttl().toMillis() / 2);
    l.executor.scheduleWithFixedDelay(l::check, period, period, TimeUnit.MILLISECONDS);
    return l;
  }

  @Override
  public boolean leads() {
    return leading && lease.alive() && leadingLease == lease.id();
  }

  /** The leader's node name as this node last saw it; empty while there is none. */
  public Optional<String> leader() {
    return Optional.ofNullable(leader);
  }

  /** This node's name. */
  public String node() {
    return node;
  }

  /** Gives the key up if this node holds it, so another node takes over at once. */
  @Override
  public void close() {
    closed = true;
    boolean held = leading;
    leading = false;
    if (watcher != null) {
      watcher.close();
    }
    executor.shutdownNow();
    if (held) {
      try {
        resign();
      } catch (ExecutionException | TimeoutException e) {
        // The key goes with the lease.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void submit(Runnable r) {
    if (closed) {
      return;
    }
    try {
      executor.execute(r);
    } catch (RejectedExecutionException e) {
      // Closed meanwhile.
    }
  }

  private void stepDown(String why) {
    if (leading) {
      leading = false;
      LOG.log(System.Logger.Level.WARNING, "{0} stops leading: {1}", node, why);
    }
  }

  private void watch() {
    watcher =
        client
            .getWatchClient()
            .watch(
                LEADER,
                Watch.listener(
                    this::changed,
                    e -> {
                      // jetcd gave the watch up (for one, its revision was compacted): watch anew.
                      if (!closed) {
                        LOG.log(System.Logger.Level.WARNING, "leader watch failed: {0}", e);
                        submit(
                            () -> {
                              watcher.close();
                              watch();
                              campaign();
                            });
                      }
                    }));
  }

  private void changed(WatchResponse r) {
    for (WatchEvent e : r.getEvents()) {
      if (e.getEventType() == WatchEvent.EventType.DELETE) {
        leader = null;
        stepDown("the leader key was deleted");
        submit(this::campaign);
      } else if (e.getEventType() == WatchEvent.EventType.PUT) {
        String holder = e.getKeyValue().getValue().toString(StandardCharsets.UTF_8);
        leader = holder;
        if (!holder.equals(node) || e.getKeyValue().getLease() != lease.id()) {
          stepDown(holder + " leads");
        }
      }
    }
  }

  /** A read of the key: campaigns when it is absent, takes note of who leads otherwise. */
  private void check() {
    try {
      Optional<KeyValue> kv = read();
      if (kv.isEmpty()) {
        leader = null;
        stepDown("the leader key is gone");
        campaign();
      } else if (!ours(kv.get())) {
        leader = kv.get().getValue().toString(StandardCharsets.UTF_8);
        stepDown(leader + " leads");
      } else if (!leading) {
        campaign();
      }
    } catch (ExecutionException | TimeoutException e) {
      // etcd unreachable: the lease decides whether this node may still lead.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "leader check failed", e);
    }
  }

  /** The leader key as etcd holds it now (a linearizable read). */
  private Optional<KeyValue> read()
      throws ExecutionException, InterruptedException, TimeoutException {
    List<KeyValue> kvs =
        client
            .getKVClient()
            .get(LEADER, GetOption.DEFAULT)
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .getKvs();
    return kvs.isEmpty() ? Optional.empty() : Optional.of(kvs.get(0));
  }

  private boolean ours(KeyValue kv) {
    return kv.getValue().toString(StandardCharsets.UTF_8).equals(node)
        && kv.getLease() == lease.id();
  }

  /**
   * Puts the key with this node's lease if it is absent; on a win runs the catch-up, then leads.
   * Runs on the election's own thread only.
   */
  private void campaign() {
    if (closed || leading || !lease.alive() || System.nanoTime() < standAsideUntilNanos) {
      return;
    }
    long leaseId = lease.id();
    try {
      TxnResponse r =
          client
              .getKVClient()
              .txn()
              .If(new Cmp(LEADER, Cmp.Op.EQUAL, CmpTarget.version(0)))
              .Then(
                  Op.put(
                      LEADER,
                      EtcdClients.bytes(node),
                      PutOption.builder().withLeaseId(leaseId).build()))
              .Else(Op.get(LEADER, GetOption.DEFAULT))
              .commit()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!r.isSucceeded()) {
        List<KeyValue> kvs = r.getGetResponses().get(0).getKvs();
        if (kvs.isEmpty()) {
          submit(this::campaign);
          return;
        }
        leader = kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
        // The key may still be ours from before a lost keep-alive that the lease survived.
        if (!ours(kvs.get(0))) {
          return;
        }
      }
      leader = node;
      long started = System.nanoTime();
      try {
        catchUp.run();
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            "{0} won the election but cannot catch up with the shared state; giving the lead up:"
                + " {1}",
            node,
            e.toString());
        standAsideUntilNanos = System.nanoTime() + lease.ttl().toNanos();
        resign();
        executor.schedule(this::campaign, lease.ttl().toMillis() + 100, TimeUnit.MILLISECONDS);
        return;
      }
      // The key may have gone while catching up (deleted by hand, the lease expired): lead only
      // while it still names this node.
      if (lease.alive()
          && lease.id() == leaseId
          && !closed
          && read().filter(this::ours).isPresent()) {
        leadingLease = leaseId;
        leading = true;
        LOG.log(
            System.Logger.Level.INFO,
            "{0} leads (caught up with the shared state in {1} ms)",
            node,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      }
    } catch (ExecutionException | TimeoutException e) {
      // etcd unreachable: the periodic check campaigns again.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes the key if it names this node. */
  private void resign() throws ExecutionException, InterruptedException, TimeoutException {
    leading = false;
    client
        .getKVClient()
        .txn()
        .If(new Cmp(LEADER, Cmp.Op.EQUAL, CmpTarget.value(EtcdClients.bytes(node))))
        .Then(Op.delete(LEADER, DeleteOption.DEFAULT))
        .commit()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
