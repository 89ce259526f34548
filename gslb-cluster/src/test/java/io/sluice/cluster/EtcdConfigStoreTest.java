package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.history.ConfigSource;
import io.sluice.core.config.history.ConfigStore;
import io.sluice.core.config.history.ConfigVersion;
import io.sluice.core.config.history.FileConfigStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configuration versions on a real 3-member etcd: a version appended through one node's store
 * reaches another's watch with its files, a master file larger than one etcd request travels in
 * chunks and arrives whole, two appends on the same current version cannot both win, and a version
 * whose file is not in etcd cannot be fetched (so it is never applied).
 */
class EtcdConfigStoreTest {
  @TempDir Path a;
  @TempDir Path b;

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** A master file of about {@code bytes} bytes: many A records. */
  static byte[] masterFile(int bytes) {
    StringBuilder sb = new StringBuilder("$TTL 300\n");
    for (int i = 0; sb.length() < bytes; i++) {
      sb.append("host")
          .append(i)
          .append(" IN A 10.")
          .append((i >> 16) & 255)
          .append('.')
          .append((i >> 8) & 255)
          .append('.')
          .append(i & 255)
          .append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static ConfigVersion draft(String yaml, Map<String, String> files) {
    return ConfigVersion.draft(
        yaml, files, "alice", "operator", ConfigSource.PUSH, "test", 1_000L, null);
  }

  @Test
  void aVersionAppendedOnOneNodeReachesAnotherWithItsChunkedFile() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(3);
        Client ca = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/cfg"));
        Client cb = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/cfg"));
        EtcdConfigStore storeA = EtcdConfigStore.open(ca, FileConfigStore.open(a), TIMEOUT);
        EtcdConfigStore storeB = EtcdConfigStore.open(cb, FileConfigStore.open(b), TIMEOUT)) {
      BlockingQueue<ConfigVersion> seen = new LinkedBlockingQueue<>();
      storeB.watch(seen::add);

      byte[] big = masterFile(3 * 1024 * 1024);
      assertTrue(big.length > 1_500_000);
      String sha = storeA.blobs().add(big);
      ConfigVersion v1 = storeA.append(draft("zones: []\n", Map.of("big.zone", sha)), 0);
      assertEquals(1, v1.version());

      ConfigVersion got = next(seen, 1);
      assertEquals("zones: []\n", got.yaml());
      assertEquals("alice", got.actor());
      assertFalse(storeB.blobs().has(sha));
      storeB.fetch(got);
      assertArrayEquals(big, Files.readAllBytes(storeB.blobs().path(sha)));
      // Stored in chunks of at most 1 MiB, and a meta key.
      var chunks =
          ca.getKVClient()
              .get(
                  EtcdClients.bytes("blobs/" + sha + "/"),
                  GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS)
              .getKvs();
      int expected = (big.length + EtcdConfigStore.CHUNK_BYTES - 1) / EtcdConfigStore.CHUNK_BYTES;
      assertEquals(expected + 1, chunks.size(), "the chunks and the meta key");
      chunks.forEach(kv -> assertTrue(kv.getValue().size() <= EtcdConfigStore.CHUNK_BYTES));

      // Both nodes append on version 1: exactly one wins.
      ConfigVersion v2 = storeB.append(draft("zones: [2]\n", Map.of()), 1);
      assertEquals(2, v2.version());
      assertThrows(
          ConfigStore.Conflict.class, () -> storeA.append(draft("zones: [x]\n", Map.of()), 1));
      assertEquals(2, storeA.current().orElseThrow().version());
      assertEquals(2, storeA.versions().size());

      // A version whose file is not (or no longer) in etcd cannot be fetched.
      String lost = storeA.blobs().add("lost\n".getBytes(StandardCharsets.UTF_8));
      ConfigVersion v3 = storeA.append(draft("zones: [3]\n", Map.of("lost.zone", lost)), 2);
      ca.getKVClient()
          .delete(
              EtcdClients.bytes("blobs/" + lost + "/"),
              DeleteOption.builder().isPrefix(true).build())
          .get(10, TimeUnit.SECONDS);
      ConfigVersion third = next(seen, 3);
      IOException e = assertThrows(IOException.class, () -> storeB.fetch(third));
      assertTrue(e.getMessage().contains("lost.zone"), e.getMessage());
      assertFalse(storeB.blobs().has(lost));
      assertEquals(3, v3.version());
    }
  }

  @Test
  void aNodeCutOffFromEtcdStillHasItsLastAppliedVersion() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client c = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/cut"));
        EtcdConfigStore store = EtcdConfigStore.open(c, FileConfigStore.open(a), TIMEOUT);
        EtcdConfigStore impatient =
            EtcdConfigStore.open(c, FileConfigStore.open(a), Duration.ofSeconds(1))) {
      ConfigVersion v = store.append(draft("zones: []\n", Map.of()), 0);
      store.applied(v);
      etcd.kill(0);
      assertThrows(IOException.class, impatient::current);
      assertEquals(1, impatient.local().current().orElseThrow().version());
    }
  }

  /** The first version numbered at least {@code n} the watch delivers, waiting a bounded time. */
  private static ConfigVersion next(BlockingQueue<ConfigVersion> seen, long n)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      ConfigVersion v = seen.poll(1, TimeUnit.SECONDS);
      if (v != null && v.version() >= n) {
        return v;
      }
    }
    throw new AssertionError("version " + n + " never arrived");
  }
}
