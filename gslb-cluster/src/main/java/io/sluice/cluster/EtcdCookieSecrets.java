package io.sluice.cluster;

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
import io.sluice.core.spi.CookieSecretExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's DNS cookie secrets on etcd: key {@code cookies/secret} holds the current secret and
 * the previous one as hex, one per line (the second line absent when there is none). The first node
 * creates it in a transaction that only succeeds while the key is absent, so every node ends up
 * with the one secret; a rotation replaces it in a transaction guarded by the revision it read. A
 * watch tells every node of a change; while etcd is unreachable a node keeps what it knew and reads
 * the key again once etcd answers. Nothing here runs on the query path.
 */
public final class EtcdCookieSecrets implements CookieSecretExchange {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdCookieSecrets.class);

  /** The key, under the cluster's prefix. */
  static final String KEY = "cookies/secret";

  private static final int ROTATE_ATTEMPTS = 5;

  private final Client client;
  private final Duration timeout;
  private final ScheduledExecutorService exec;
  private final ByteSequence key = EtcdClients.bytes(KEY);
  private volatile Consumer<Secrets> listener;
  private volatile Secrets seed;
  // Touched only on the exchange's thread.
  private Watch.Watcher watcher;
  private boolean connected;
  // Events of a watch replaced by a resync are ignored: they are older than its read.
  private volatile long generation;
  private volatile boolean closed;

  private EtcdCookieSecrets(Client client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
    this.exec =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-cookie-secrets");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * The cookie secrets of the cluster {@code client} is namespaced to, with {@code timeout} on
   * every etcd call.
   */
  public static EtcdCookieSecrets create(Client client, Duration timeout) {
    return new EtcdCookieSecrets(client, timeout);
  }

  @Override
  public void start(Secrets seed, Consumer<Secrets> listener) {
    this.seed = Objects.requireNonNull(seed, "seed");
    this.listener = Objects.requireNonNull(listener, "listener");
    exec.execute(this::resync);
    long every = Math.max(200, Math.min(1000, timeout.toMillis() / 2));
    exec.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public Secrets rotate(byte[] fresh) throws IOException {
    for (int attempt = 1; attempt <= ROTATE_ATTEMPTS; attempt++) {
      GetResponse r = await(client.getKVClient().get(key), "read the cookie secret");
      Cmp guard;
      Secrets next;
      if (r.getKvs().isEmpty()) {
        // No node published one yet: the fresh secret is the first, nothing before it.
        guard = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0));
        next = new Secrets(fresh, null);
      } else {
        KeyValue kv = r.getKvs().get(0);
        guard = new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision()));
        next = decode(kv.getValue()).rotatedTo(fresh);
      }
      TxnResponse t =
          await(
              client
                  .getKVClient()
                  .txn()
                  .If(guard)
                  .Then(Op.put(key, encode(next), PutOption.DEFAULT))
                  .commit(),
              "rotate the cookie secret");
      if (t.isSucceeded()) {
        // Every node hears of it through its watch, this one too: changes reach a node in the
        // order etcd made them, so two rotations at once never leave it on the older one.
        LOG.info("cookie secret rotated for the cluster to {}", next.fingerprint());
        return next;
      }
      // Another node rotated between the read and the write: rotate what it wrote.
    }
    throw new IOException(
        "the cookie secret kept changing under " + ROTATE_ATTEMPTS + " rotations");
  }

  /** While connected, a cheap read shows etcd still answers; while not, reads the key again. */
  private void check() {
    if (closed) {
      return;
    }
    if (!connected) {
      resync();
      return;
    }
    try {
      client
          .getKVClient()
          .get(key, GetOption.builder().withCountOnly(true).build())
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      lost("etcd does not answer: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Creates the key with the seed unless it exists (one transaction: the first node wins), hands
   * the cluster's secrets to the listener and watches from after that read.
   */
  private void resync() {
    if (closed) {
      return;
    }
    try {
      TxnResponse t =
          client
              .getKVClient()
              .txn()
              .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0)))
              .Then(Op.put(key, encode(seed), PutOption.DEFAULT))
              .Else(Op.get(key, GetOption.DEFAULT))
              .commit()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      Secrets shared;
      if (t.isSucceeded()) {
        shared = seed;
        LOG.info("cookie secret {} published for the cluster (first node)", shared.fingerprint());
      } else {
        shared = decode(t.getGetResponses().get(0).getKvs().get(0).getValue());
      }
      if (watcher != null) {
        watcher.close();
      }
      long gen = ++generation;
      listener.accept(shared);
      watcher =
          client
              .getWatchClient()
              .watch(
                  key,
                  WatchOption.builder().withRevision(t.getHeader().getRevision() + 1).build(),
                  Watch.listener(
                      resp -> {
                        for (WatchEvent e : resp.getEvents()) {
                          if (gen == generation && e.getEventType() == WatchEvent.EventType.PUT) {
                            changed(e.getKeyValue());
                          }
                        }
                      },
                      failure -> {
                        if (gen == generation && !closed) {
                          exec.execute(() -> lost("watch failed: " + failure.getMessage()));
                        }
                      }));
      if (!connected) {
        LOG.info("cookie secret {}: following the cluster's on etcd", shared.fingerprint());
      }
      connected = true;
    } catch (ExecutionException | TimeoutException e) {
      lost("etcd does not answer: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      lost(e.toString());
    }
  }

  private void changed(KeyValue kv) {
    try {
      listener.accept(decode(kv.getValue()));
    } catch (IllegalArgumentException e) {
      LOG.error("ignoring an unusable cookie secret in etcd key {}: {}", KEY, e.getMessage());
    }
  }

  private void lost(String why) {
    if (connected) {
      LOG.warn("cookie secret: cut off from etcd ({}); keeping the one known", why);
    }
    connected = false;
  }

  static ByteSequence encode(Secrets s) {
    HexFormat hex = HexFormat.of();
    String text =
        hex.formatHex(s.current())
            + "\n"
            + (s.previous() == null ? "" : hex.formatHex(s.previous()) + "\n");
    return ByteSequence.from(text, StandardCharsets.US_ASCII);
  }

  /** The secrets a key holds; throws {@link IllegalArgumentException} for anything else. */
  static Secrets decode(ByteSequence value) {
    String[] lines = value.toString(StandardCharsets.US_ASCII).strip().split("\n");
    HexFormat hex = HexFormat.of();
    return new Secrets(
        hex.parseHex(lines[0].strip()), lines.length > 1 ? hex.parseHex(lines[1].strip()) : null);
  }

  private <T> T await(java.util.concurrent.CompletableFuture<T> f, String what) throws IOException {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      String why =
          e instanceof TimeoutException
              ? "no answer within " + timeout.toMillis() + " ms"
              : String.valueOf(e.getCause());
      throw new IOException("cannot " + what + " on etcd: " + why, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while trying to " + what, e);
    }
  }

  @Override
  public void close() {
    closed = true;
    exec.shutdownNow();
    Watch.Watcher w = watcher;
    if (w != null) {
      w.close();
    }
  }
}
