package io.sluice.cluster;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.sluice.core.spi.KeyFileExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * The cluster's DNSSEC key files on etcd: key {@code dnssec/keys/<zone>} holds the zone's files as
 * one JSON object (file name to text), so a rollover step changes all of a zone's files in one
 * transaction. The first node to share a zone's keys creates the key in a transaction that only
 * succeeds while it is absent; later nodes take the cluster's. A watch on {@code dnssec/keys/}
 * tells every node of a change. The value holds private keys: etcd must be reached over TLS with
 * authentication (docs/cluster.md). Nothing here runs on the query path.
 */
public final class EtcdKeyFiles implements KeyFileExchange {
  /** The prefix of the zones' keys, under the cluster's prefix. */
  static final String PREFIX = "dnssec/keys/";

  private static final int UPDATE_ATTEMPTS = 5;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<TreeMap<String, String>> FILES = new TypeReference<>() {};

  private final Client client;
  private final Duration timeout;
  private Watch.Watcher watcher;

  private EtcdKeyFiles(Client client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  /** The key files of the cluster {@code client} is namespaced to, {@code timeout} per call. */
  public static EtcdKeyFiles create(Client client, Duration timeout) {
    return new EtcdKeyFiles(client, timeout);
  }

  private static ByteSequence key(String zone) {
    return EtcdClients.bytes(PREFIX + zone);
  }

  @Override
  public Optional<Map<String, String>> read(String zone) throws IOException {
    GetResponse r = await(client.getKVClient().get(key(zone)), "read the keys of " + zone);
    return r.getKvs().isEmpty() ? Optional.empty() : Optional.of(decode(r.getKvs().get(0)));
  }

  @Override
  public Map<String, String> publishIfAbsent(String zone, Map<String, String> files)
      throws IOException {
    ByteSequence k = key(zone);
    TxnResponse t =
        await(
            client
                .getKVClient()
                .txn()
                .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.version(0)))
                .Then(Op.put(k, encode(files), PutOption.DEFAULT))
                .Else(Op.get(k, GetOption.DEFAULT))
                .commit(),
            "share the keys of " + zone);
    return t.isSucceeded() ? files : decode(t.getGetResponses().get(0).getKvs().get(0));
  }

  @Override
  public void update(String zone, Map<String, String> files) throws IOException {
    ByteSequence k = key(zone);
    for (int attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
      GetResponse r = await(client.getKVClient().get(k), "read the keys of " + zone);
      Map<String, String> next = new TreeMap<>();
      Cmp guard = new Cmp(k, Cmp.Op.EQUAL, CmpTarget.version(0));
      if (!r.getKvs().isEmpty()) {
        KeyValue kv = r.getKvs().get(0);
        next.putAll(decode(kv));
        guard = new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision()));
      }
      next.putAll(files);
      TxnResponse t =
          await(
              client
                  .getKVClient()
                  .txn()
                  .If(guard)
                  .Then(Op.put(k, encode(next), PutOption.DEFAULT))
                  .commit(),
              "write the keys of " + zone);
      if (t.isSucceeded()) {
        return;
      }
      // Another node changed the zone's keys between the read and the write: merge into theirs.
    }
    throw new IOException(
        "the keys of " + zone + " kept changing under " + UPDATE_ATTEMPTS + " writes");
  }

  @Override
  public synchronized void watch(BiConsumer<String, Map<String, String>> listener) {
    ByteSequence prefix = EtcdClients.bytes(PREFIX);
    watcher =
        client
            .getWatchClient()
            .watch(
                prefix,
                WatchOption.builder().isPrefix(true).build(),
                Watch.listener(
                    resp -> {
                      for (WatchEvent e : resp.getEvents()) {
                        if (e.getEventType() == WatchEvent.EventType.PUT) {
                          String name = e.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
                          String zone = name.substring(name.lastIndexOf(PREFIX) + PREFIX.length());
                          try {
                            listener.accept(zone, decode(e.getKeyValue()));
                          } catch (IOException bad) {
                            // A value no node wrote: nothing to mirror.
                          }
                        }
                      }
                    }));
  }

  @Override
  public synchronized void close() {
    if (watcher != null) {
      watcher.close();
    }
  }

  private static ByteSequence encode(Map<String, String> files) throws IOException {
    return ByteSequence.from(JSON.writeValueAsBytes(new TreeMap<>(files)));
  }

  private static Map<String, String> decode(KeyValue kv) throws IOException {
    return JSON.readValue(kv.getValue().getBytes(), FILES);
  }

  private <T> T await(CompletableFuture<T> f, String what) throws IOException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("cannot " + what + " on etcd: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while trying to " + what, e);
    }
  }
}
