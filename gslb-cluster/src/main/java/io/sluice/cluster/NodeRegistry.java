package io.sluice.cluster;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.PutOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * This node's entry in the cluster's registry: {@code nodes/<node>}, a JSON {@link Entry} attached
 * to the node's lease, so it vanishes within the lease TTL when the node dies or is cut off. It is
 * put again when the applied shared-state revision changes (at most once per {@link
 * #MIN_INTERVAL}), as a heartbeat every {@link #HEARTBEAT}, and at once when the lease was granted
 * anew.
 */
public final class NodeRegistry implements AutoCloseable {
  /** The prefix of every node's entry. */
  public static final String PREFIX = "nodes/";

  /** The shortest time between two puts of a changed entry. */
  static final Duration MIN_INTERVAL = Duration.ofSeconds(2);

  /** The longest time between two puts of an unchanged entry. */
  static final Duration HEARTBEAT = Duration.ofSeconds(10);

  private static final System.Logger LOG = System.getLogger(NodeRegistry.class.getName());
  // Entries written by a newer node may carry more fields: read what this version knows.
  private static final ObjectMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /**
   * A node as the registry lists it: name, region, its DNS address (HOST:PORT) and admin API (URL)
   * as others reach them, the shared-state revision it has applied, when it started and when it
   * last put its entry (epoch millis).
   */
  public record Entry(
      String node,
      String region,
      String dns,
      String admin,
      long appliedRevision,
      long startedMillis,
      long heartbeatMillis) {

    /** This entry as stored in etcd. */
    public ByteSequence encode() {
      try {
        return ByteSequence.from(JSON.writeValueAsBytes(this));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Reads an entry as stored in etcd. */
    public static Entry decode(ByteSequence value) throws IOException {
      return JSON.readValue(value.getBytes(), Entry.class);
    }
  }

  private final Client client;
  private final NodeLease lease;
  private final Entry base;
  private final LongSupplier appliedRevision;
  private final Duration timeout;
  private final ScheduledExecutorService executor;
  private volatile boolean putAgain = true;
  private long lastPutNanos;
  private long lastApplied = -1;

  private NodeRegistry(
      Client client, NodeLease lease, Entry base, LongSupplier appliedRevision, Duration timeout) {
    this.client = client;
    this.lease = lease;
    this.base = base;
    this.appliedRevision = appliedRevision;
    this.timeout = timeout;
    this.executor = Daemons.single("sluice-node-registry");
  }

  /**
   * Registers {@code self} (its revision and heartbeat are filled in) under this node's lease and
   * keeps the entry current; {@code appliedRevision} is read off the query path, once a second.
   */
  public static NodeRegistry start(
      Client client, NodeLease lease, Entry self, LongSupplier appliedRevision, Duration timeout) {
    NodeRegistry r = new NodeRegistry(client, lease, self, appliedRevision, timeout);
    lease.addListener(
        id -> {
          r.putAgain = true;
          r.executor.execute(r::refresh);
        });
    r.executor.execute(r::refresh);
    r.executor.scheduleWithFixedDelay(r::refresh, 1, 1, TimeUnit.SECONDS);
    return r;
  }

  /** The entry's key for {@code node}. */
  public static ByteSequence key(String node) {
    return EtcdClients.bytes(PREFIX + node);
  }

  private void refresh() {
    long now = System.nanoTime();
    long applied = appliedRevision.getAsLong();
    long since = now - lastPutNanos;
    boolean due =
        putAgain
            || since >= HEARTBEAT.toNanos()
            || (applied != lastApplied && since >= MIN_INTERVAL.toNanos());
    if (!due || !lease.alive()) {
      return;
    }
    Entry e =
        new Entry(
            base.node(),
            base.region(),
            base.dns(),
            base.admin(),
            applied,
            base.startedMillis(),
            System.currentTimeMillis());
    try {
      client
          .getKVClient()
          .put(key(base.node()), e.encode(), PutOption.builder().withLeaseId(lease.id()).build())
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      lastPutNanos = now;
      lastApplied = applied;
      putAgain = false;
    } catch (ExecutionException | TimeoutException ex) {
      putAgain = true;
      LOG.log(System.Logger.Level.DEBUG, "registry entry not written: {0}", ex.toString());
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops refreshing; the entry goes with the lease (revoked on an orderly stop). */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
