package io.sluice.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.sluice.core.config.history.BlobCache;
import io.sluice.core.config.history.ConfigStore;
import io.sluice.core.config.history.ConfigVersion;
import io.sluice.core.config.history.FileConfigStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration versions of a cluster in etcd: {@code config/current} holds the current
 * version's number, {@code config/versions/<n>} each version (YAML, file manifest, actor, reason,
 * time), {@code blobs/<sha256>/<i>} the referenced files in chunks of at most 1 MiB (etcd refuses
 * requests of more than about 1.5 MiB) and {@code blobs/<sha256>/meta} their size and count,
 * written last so that a file is complete once its meta exists. A version is appended by one
 * transaction guarded by the revision of {@code config/current}, after its files were uploaded.
 *
 * <p>The node's own state directory ({@link FileConfigStore}) keeps the versions it applied and
 * their files, so a node started while etcd is unreachable runs its last applied version.
 */
public final class EtcdConfigStore implements ConfigStore {
  private static final Logger log = LoggerFactory.getLogger(EtcdConfigStore.class);

  /** The largest chunk of a referenced file in one etcd value. */
  public static final int CHUNK_BYTES = 1 << 20;

  // A version's YAML must fit in one request with room to spare.
  private static final int MAX_VERSION_BYTES = 1_400_000;
  // How often the current version is re-read besides the watch: catches up after an outage and
  // retries a version whose files were not all there yet.
  private static final Duration POLL = Duration.ofSeconds(5);

  private static final String CURRENT = "config/current";
  private static final String VERSIONS = "config/versions/";
  private static final String BLOBS = "blobs/";

  private final Client client;
  private final KV kv;
  private final FileConfigStore local;
  private final Duration timeout;
  private final int keep;
  private final ScheduledExecutorService worker;
  private Watch.Watcher watcher;

  private EtcdConfigStore(Client client, FileConfigStore local, Duration timeout, int keep) {
    this.client = client;
    this.kv = client.getKVClient();
    this.local = local;
    this.timeout = timeout;
    this.keep = keep;
    this.worker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-config-watch");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * A store on {@code client} (namespaced under the cluster's prefix), each request bounded by
   * {@code timeout}; {@code local} is the node's state directory history.
   */
  public static EtcdConfigStore open(Client client, FileConfigStore local, Duration timeout) {
    return new EtcdConfigStore(client, local, timeout, FileConfigStore.DEFAULT_KEEP);
  }

  /** The node's local history (the versions it applied). */
  public FileConfigStore local() {
    return local;
  }

  @Override
  public Optional<ConfigVersion> current() throws IOException {
    long n = currentEntry().number();
    return n == 0 ? Optional.empty() : version(n);
  }

  private record Current(long number, long modRevision) {}

  private Current currentEntry() throws IOException {
    List<KeyValue> kvs = await(kv.get(key(CURRENT)), "read " + CURRENT).getKvs();
    if (kvs.isEmpty()) {
      return new Current(0, 0);
    }
    KeyValue c = kvs.get(0);
    try {
      return new Current(
          Long.parseLong(c.getValue().toString(StandardCharsets.UTF_8).strip()),
          c.getModRevision());
    } catch (NumberFormatException e) {
      throw new IOException(CURRENT + " in etcd does not hold a version number");
    }
  }

  @Override
  public List<ConfigVersion> versions() throws IOException {
    // Keys first, then one version a request: a gRPC answer is limited to 4 MiB, and each version
    // may be up to 1.4 MB.
    GetResponse keys =
        await(
            kv.get(key(VERSIONS), GetOption.builder().isPrefix(true).withKeysOnly(true).build()),
            "list " + VERSIONS);
    List<ConfigVersion> out = new ArrayList<>();
    for (KeyValue e : keys.getKvs()) {
      String name = e.getKey().toString(StandardCharsets.UTF_8);
      try {
        version(Long.parseLong(name.substring(name.lastIndexOf('/') + 1))).ifPresent(out::add);
      } catch (NumberFormatException ignored) {
        // not a version key
      }
    }
    out.sort(Comparator.comparingLong(ConfigVersion::version).reversed());
    return out;
  }

  @Override
  public Optional<ConfigVersion> version(long n) throws IOException {
    List<KeyValue> kvs = await(kv.get(key(VERSIONS + n)), "read " + VERSIONS + n).getKvs();
    if (kvs.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ConfigVersion.fromJson(kvs.get(0).getValue().getBytes(), VERSIONS + n));
  }

  @Override
  public ConfigVersion append(ConfigVersion draft, long expectedCurrent) throws IOException {
    Current current = currentEntry();
    if (current.number() != expectedCurrent) {
      throw new Conflict(
          "version "
              + current.number()
              + " became current meanwhile (expected "
              + expectedCurrent
              + ")");
    }
    for (Map.Entry<String, String> f : draft.files().entrySet()) {
      upload(f.getKey(), f.getValue());
    }
    ConfigVersion v = draft.numbered(current.number() + 1);
    byte[] json = v.toJson();
    if (json.length > MAX_VERSION_BYTES) {
      throw new IOException(
          "the configuration is "
              + json.length
              + " bytes, more than the "
              + MAX_VERSION_BYTES
              + " etcd takes in one version; move records into master files");
    }
    // Exactly one writer turns current n into n+1: the guard is current's revision (0: absent).
    boolean ok =
        await(
                kv.txn()
                    .If(
                        new Cmp(
                            key(CURRENT),
                            Cmp.Op.EQUAL,
                            CmpTarget.modRevision(current.modRevision())))
                    .Then(
                        Op.put(
                            key(VERSIONS + v.version()),
                            ByteSequence.from(json),
                            PutOption.DEFAULT),
                        Op.put(key(CURRENT), text(Long.toString(v.version())), PutOption.DEFAULT))
                    .commit(),
                "append version " + v.version())
            .isSucceeded();
    if (!ok) {
      throw new Conflict("another node appended version " + v.version() + " first");
    }
    long old = v.version() - keep;
    if (old > 0) {
      // Best effort: the history in etcd keeps the last versions like a node's state directory.
      kv.delete(key(VERSIONS + old));
    }
    return v;
  }

  /** Uploads the content {@code sha} (of {@code path}) unless etcd already has it whole. */
  private void upload(String path, String sha) throws IOException {
    if (!await(kv.get(key(BLOBS + sha + "/meta")), "read blob meta").getKvs().isEmpty()) {
      return;
    }
    BlobCache blobs = local.blobs();
    if (!blobs.has(sha)) {
      throw new IOException("the copy of '" + path + "' (sha256 " + sha + ") is not on this node");
    }
    long size = Files.size(blobs.path(sha));
    int chunks = 0;
    try (InputStream in = Files.newInputStream(blobs.path(sha))) {
      do {
        byte[] chunk = in.readNBytes(CHUNK_BYTES);
        if (chunk.length == 0 && chunks > 0) {
          break;
        }
        await(kv.put(key(BLOBS + sha + "/" + chunks), ByteSequence.from(chunk)), "upload " + path);
        chunks++;
      } while ((long) chunks * CHUNK_BYTES < size);
    }
    await(
        kv.put(
            key(BLOBS + sha + "/meta"), text("{\"size\":" + size + ",\"chunks\":" + chunks + "}")),
        "upload " + path);
  }

  @Override
  public BlobCache blobs() {
    return local.blobs();
  }

  @Override
  public void fetch(ConfigVersion v) throws IOException {
    for (Map.Entry<String, String> f : v.files().entrySet()) {
      String sha = f.getValue();
      if (local.blobs().has(sha)) {
        continue;
      }
      List<KeyValue> meta = await(kv.get(key(BLOBS + sha + "/meta")), "read blob meta").getKvs();
      if (meta.isEmpty()) {
        throw new IOException(
            "'"
                + f.getKey()
                + "' (sha256 "
                + sha
                + ") of version "
                + v.version()
                + " is not in etcd");
      }
      int chunks = chunkCount(meta.get(0).getValue().toString(StandardCharsets.UTF_8));
      List<InputStream> parts = new ArrayList<>();
      for (int i = 0; i < chunks; i++) {
        List<KeyValue> c = await(kv.get(key(BLOBS + sha + "/" + i)), "read blob chunk").getKvs();
        if (c.isEmpty()) {
          throw new IOException(
              "chunk " + i + " of '" + f.getKey() + "' (sha256 " + sha + ") is missing in etcd");
        }
        parts.add(new java.io.ByteArrayInputStream(c.get(0).getValue().getBytes()));
      }
      try (InputStream all = new SequenceInputStream(java.util.Collections.enumeration(parts))) {
        // Checked against its hash before it is installed: a damaged file is never used.
        local.blobs().put(sha, all);
      }
    }
  }

  private static int chunkCount(String meta) throws IOException {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"chunks\":(\\d+)").matcher(meta);
    if (!m.find()) {
      throw new IOException("unreadable blob meta: " + meta);
    }
    return Integer.parseInt(m.group(1));
  }

  @Override
  public void applied(ConfigVersion v) throws IOException {
    local.adopt(v);
  }

  @Override
  public synchronized void watch(Consumer<ConfigVersion> listener) {
    Runnable check =
        () -> {
          try {
            current().ifPresent(listener);
          } catch (IOException | RuntimeException e) {
            log.debug("configuration check skipped: {}", e.toString());
          }
        };
    watcher =
        client
            .getWatchClient()
            .watch(
                key(CURRENT),
                WatchOption.builder().build(),
                r -> {
                  for (WatchEvent e : r.getEvents()) {
                    if (e.getEventType() == WatchEvent.EventType.PUT) {
                      worker.execute(check);
                    }
                  }
                },
                err -> log.debug("configuration watch: {}", err.toString()));
    worker.scheduleWithFixedDelay(check, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void close() {
    if (watcher != null) {
      watcher.close();
    }
    worker.shutdownNow();
  }

  private <T> T await(CompletableFuture<T> f, String what) throws IOException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + what, e);
    } catch (ExecutionException e) {
      throw new IOException("etcd: cannot " + what + ": " + e.getCause().getMessage(), e);
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new IOException(
          "etcd: cannot " + what + ": no answer within " + timeout.toMillis() + " ms");
    }
  }

  private static ByteSequence key(String k) {
    return EtcdClients.bytes(k);
  }

  private static ByteSequence text(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
