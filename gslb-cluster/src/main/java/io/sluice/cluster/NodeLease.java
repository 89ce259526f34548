package io.sluice.cluster;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one etcd lease of a node process, kept alive while the process runs: the node's registry
 * entry, its health opinions and (while it leads) the leader key are attached to it, so that all of
 * them vanish together within the lease TTL when the node dies or is cut off.
 *
 * <p>A lease can be lost while the process lives (etcd unreachable for longer than the TTL): the
 * node then counts as dead to the others and its keys are gone. This class notices it (no
 * keep-alive acknowledged within the safe part of the TTL), tells its listeners at once ({@link
 * Listener#lost}), and once etcd answers again keeps the lease alive again or grants a new one and
 * tells the listeners ({@link Listener#granted}) so that they put their keys again.
 */
public final class NodeLease implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NodeLease.class.getName());

  /** Told when the lease may be gone and when it is usable again. */
  public interface Listener {
    /**
     * The lease is usable again after {@link #lost} (the same lease, or a new one when the old one
     * expired): put every key attached to it again. Runs on the lease's own thread.
     */
    void granted(long id);

    /**
     * No keep-alive was acknowledged within the safe part of the TTL: keys attached to the lease
     * may be gone. Called at once, before etcd answers again.
     */
    default void lost(long id) {}
  }

  private final Client client;
  private final long ttlSeconds;
  private final Duration timeout;
  private final long safeNanos;
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService supervisor;
  // The id while no lease is granted.
  private static final long NONE = 0;

  private volatile long id;
  private volatile CloseableClient keepAlive;
  private volatile boolean streamEnded;
  private volatile long lastAckNanos = System.nanoTime();
  private volatile long lastKeepAliveMillis = System.currentTimeMillis();
  private volatile boolean lostTold;
  private volatile boolean closed;

  private NodeLease(Client client, long id, long ttlSeconds, Duration timeout) {
    this.client = client;
    this.id = id;
    this.ttlSeconds = ttlSeconds;
    this.timeout = timeout;
    // A lease expires at etcd TTL after its last refresh, which came before our acknowledgement:
    // count it lost a margin earlier, so this node never acts on a lease etcd has let go. The
    // margin leaves room for two late keep-alives (one goes out every third of the TTL).
    long ttlMillis = ttlSeconds * 1000;
    this.safeNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis - Math.max(500, ttlMillis / 4));
    this.supervisor = Daemons.single("sluice-node-lease");
    if (id != NONE) {
      this.keepAlive = startKeepAlive(id);
    } else {
      // Not granted yet: the supervisor grants it once etcd answers and tells the listeners.
      this.lastAckNanos = System.nanoTime() - safeNanos;
      this.lastKeepAliveMillis = 0;
      this.lostTold = true;
      this.streamEnded = true;
    }
    long period = Math.max(200, ttlMillis / 10);
    supervisor.scheduleWithFixedDelay(this::supervise, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * A lease of {@code ttl} (at least 2 s) granted in the background, so that a node whose etcd is
   * unreachable still starts: {@link #alive()} is false and {@link #id()} is 0 until it is granted;
   * then the listeners hear {@link Listener#granted}.
   */
  public static NodeLease start(Client client, Duration ttl, Duration timeout) {
    return new NodeLease(client, NONE, Math.max(2, ttl.toSeconds()), timeout);
  }

  /** Grants a lease of {@code ttl} (at least 2 s) and keeps it alive until {@link #close()}. */
  public static NodeLease grant(Client client, Duration ttl, Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    long seconds = Math.max(2, ttl.toSeconds());
    long id =
        client
            .getLeaseClient()
            .grant(seconds)
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .getID();
    return new NodeLease(client, id, seconds, timeout);
  }

  /** The lease id to attach keys to (a new one after the old lease expired). */
  public long id() {
    return id;
  }

  /** The lease's time to live. */
  public Duration ttl() {
    return Duration.ofSeconds(ttlSeconds);
  }

  /**
   * Whether the lease is surely alive at etcd: a keep-alive was acknowledged within the safe part
   * of the TTL. False from the moment that may no longer hold.
   */
  public boolean alive() {
    return !closed && System.nanoTime() - lastAckNanos < safeNanos;
  }

  /** When a keep-alive was last acknowledged (epoch millis): the node's last contact with etcd. */
  public long lastKeepAliveMillis() {
    return lastKeepAliveMillis;
  }

  /** Adds a listener, told of every later loss and re-grant. */
  public void addListener(Listener l) {
    listeners.add(l);
  }

  /** Revokes the lease, so this node's keys vanish at once on an orderly stop. */
  @Override
  public void close() {
    closed = true;
    supervisor.shutdownNow();
    if (keepAlive != null) {
      keepAlive.close();
    }
    if (id == NONE) {
      return;
    }
    try {
      client.getLeaseClient().revoke(id).get(2, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // The lease expires by itself within its TTL.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops keeping the lease alive without revoking it, as a crash or a cut would: its keys vanish
   * only when etcd expires it. For tests of what the other nodes see.
   */
  public void abandon() {
    closed = true;
    supervisor.shutdownNow();
    if (keepAlive != null) {
      keepAlive.close();
    }
  }

  private CloseableClient startKeepAlive(long leaseId) {
    streamEnded = false;
    return client
        .getLeaseClient()
        .keepAlive(
            leaseId,
            new StreamObserver<>() {
              @Override
              public void onNext(LeaseKeepAliveResponse r) {
                if (r.getTTL() > 0 && r.getID() == id) {
                  lastAckNanos = System.nanoTime();
                  lastKeepAliveMillis = System.currentTimeMillis();
                }
              }

              @Override
              public void onError(Throwable t) {
                // The lease is gone at etcd (or its keep-alive given up): the supervisor checks.
                streamEnded = true;
              }

              @Override
              public void onCompleted() {
                streamEnded = true;
              }
            });
  }

  private void tellLost() {
    if (lostTold) {
      return;
    }
    lostTold = true;
    LOG.log(
        System.Logger.Level.WARNING,
        "no keep-alive of the node lease for {0} ms: its keys may be gone",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastAckNanos));
    long lostId = id;
    for (Listener l : listeners) {
      tell(() -> l.lost(lostId));
    }
  }

  /** One listener's failure must not keep the others (or the lease) from their turn. */
  private static void tell(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "a node lease listener failed", e);
    }
  }

  /** Notices a lost lease at once; once etcd answers, revives it or grants a new one. */
  private void supervise() {
    if (closed) {
      return;
    }
    try {
      if (!alive()) {
        tellLost();
      }
      if (!streamEnded && !lostTold) {
        return;
      }
      long remaining =
          id == NONE
              ? 0
              : client
                  .getLeaseClient()
                  .timeToLive(id, LeaseOption.DEFAULT)
                  .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                  .getTTL();
      if (remaining > 0) {
        if (streamEnded) {
          if (keepAlive != null) {
            keepAlive.close();
          }
          keepAlive = startKeepAlive(id);
        }
        if (!alive()) {
          // Alive at etcd after all: refresh now rather than wait for the stream's next beat.
          client.getLeaseClient().keepAliveOnce(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
          lastAckNanos = System.nanoTime();
          lastKeepAliveMillis = System.currentTimeMillis();
        }
      } else {
        tellLost();
        long fresh =
            client
                .getLeaseClient()
                .grant(ttlSeconds)
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .getID();
        if (keepAlive != null) {
          keepAlive.close();
        }
        long old = id;
        id = fresh;
        lastAckNanos = System.nanoTime();
        lastKeepAliveMillis = System.currentTimeMillis();
        keepAlive = startKeepAlive(fresh);
        if (old == NONE) {
          LOG.log(System.Logger.Level.INFO, "granted the node lease {0}", Long.toHexString(fresh));
        } else {
          LOG.log(
              System.Logger.Level.WARNING,
              "the node lease {0} expired; granted {1} and putting this node''s keys again",
              Long.toHexString(old),
              Long.toHexString(fresh));
        }
      }
      if (lostTold) {
        lostTold = false;
        for (Listener l : listeners) {
          tell(() -> l.granted(id));
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      // etcd does not answer yet: try again on the next round.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "node lease supervision failed", e);
    }
  }
}
