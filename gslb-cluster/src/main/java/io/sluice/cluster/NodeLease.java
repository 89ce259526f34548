package io.sluice.cluster;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one etcd lease of a node process, kept alive while the process runs: the node's registry
 * entry, its health opinions and (while it leads) the leader key are attached to it, so that all of
 * them vanish together within the lease TTL when the node dies or is cut off.
 */
public final class NodeLease implements AutoCloseable {
  private final Client client;
  private final long id;
  private final CloseableClient keepAlive;
  private final AtomicLong lastKeepAliveMillis = new AtomicLong(System.currentTimeMillis());

  private NodeLease(Client client, long id, StreamObserverHolder holder) {
    this.client = client;
    this.id = id;
    this.keepAlive = client.getLeaseClient().keepAlive(id, holder.observer(lastKeepAliveMillis));
  }

  /** Grants a lease of {@code ttl} and keeps it alive until {@link #close()}. */
  public static NodeLease grant(Client client, Duration ttl, Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    long id =
        client
            .getLeaseClient()
            .grant(Math.max(2, ttl.toSeconds()))
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
            .getID();
    return new NodeLease(client, id, new StreamObserverHolder());
  }

  /** The lease id to attach keys to. */
  public long id() {
    return id;
  }

  /** When a keep-alive was last acknowledged (epoch millis). */
  public long lastKeepAliveMillis() {
    return lastKeepAliveMillis.get();
  }

  /** Revokes the lease, so this node's keys vanish at once on an orderly stop. */
  @Override
  public void close() {
    keepAlive.close();
    try {
      client.getLeaseClient().revoke(id).get(2, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // The lease expires by itself within its TTL.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Builds the keep-alive observer that records each acknowledgement. */
  private static final class StreamObserverHolder {
    StreamObserver<LeaseKeepAliveResponse> observer(AtomicLong last) {
      return new StreamObserver<>() {
        @Override
        public void onNext(LeaseKeepAliveResponse r) {
          last.set(System.currentTimeMillis());
        }

        @Override
        public void onError(Throwable t) {
          // jetcd re-establishes the stream; staleness shows in lastKeepAliveMillis.
        }

        @Override
        public void onCompleted() {}
      };
    }
  }
}
