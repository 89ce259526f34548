package io.sluice.dns.dnssec.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.etcd.jetcd.Client;
import io.sluice.cluster.EtcdClients;
import io.sluice.cluster.EtcdKeyFiles;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.dnssec.DnssecKeyManager;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.core.dnssec.RolloverStep;
import io.sluice.core.testing.ManualTicker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;

/**
 * Two nodes sharing DNSSEC keys through a real etcd: the first node's generated key becomes the
 * cluster's, a second node takes it (moving its own key aside), and a rollover step on one node
 * reaches the other's key directory and signer.
 */
class ClusterKeysTest {
  private static final Name ZONE = KeyFilesTest.ZONE;

  private static SluiceConfig clustered(List<String> endpoints) {
    ClusterConfig cluster =
        new ClusterConfig(
            "n1",
            null,
            new ClusterConfig.EtcdConfig(endpoints, "/sluice/keys-test", null, null, null, null),
            null,
            null,
            null);
    return SluiceConfig.builder().cluster(cluster).build();
  }

  private static void waitFor(String what, BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  private static List<Integer> tags(KeyDirectory keys) {
    return keys.keys(ZONE).orElseThrow().keys().stream().map(SigningKey::tag).sorted().toList();
  }

  @Test
  void everyNodeSignsWithTheClustersKeys(@TempDir Path a, @TempDir Path b) throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client clientA = EtcdClients.create(clustered(etcd.endpoints()));
        Client clientB = EtcdClients.create(clustered(etcd.endpoints()))) {
      ManualTicker clock = new ManualTicker(System.currentTimeMillis());
      KeyDirectory nodeA = new KeyDirectory(clock);
      KeyDirectory nodeB = new KeyDirectory(clock);
      nodeA.share(EtcdKeyFiles.create(clientA, Duration.ofSeconds(5)));
      nodeB.share(EtcdKeyFiles.create(clientB, Duration.ofSeconds(5)));
      // B made a key of its own before it joined: the cluster's wins.
      SigningKey own =
          KeyGenerator.generate(
              ZONE,
              DnssecAlgorithm.ECDSAP256SHA256,
              KeyRole.CSK,
              Duration.ofHours(1),
              KeyTiming.startingAt(nodeB.now()));
      KeyFiles.write(b, own);

      KeyDirectory.LoadReport first = nodeA.load(List.of(KeyDirectoryTest.setup(ZONE, a, true)));
      assertEquals(1, first.generated().size());
      assertEquals(List.of(), first.problems());
      KeyDirectory.LoadReport second = nodeB.load(List.of(KeyDirectoryTest.setup(ZONE, b, true)));
      assertEquals(List.of(), second.generated(), "a cluster node generates only as the first");
      assertEquals(tags(nodeA), tags(nodeB));
      assertTrue(
          Files.exists(
              b.resolve(KeyDirectory.NOT_IN_CLUSTER).resolve(KeyFiles.baseName(own) + ".private")));
      String base = KeyFiles.baseName(nodeA.keys(ZONE).orElseThrow().keys().get(0));
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(
              Files.getPosixFilePermissions(b.resolve(base + ".private"))));

      List<Name> toldB = new CopyOnWriteArrayList<>();
      nodeB.addListener(toldB::add);
      KeyManager onA = new KeyManager(nodeA, AuditSink.NONE, KeyManager.KeyStore.of(nodeA));
      assertInstanceOf(
          DnssecKeyManager.Done.class,
          onA.step(new Actor("ops", "admin"), "example.com", RolloverStep.KSK_PUBLISH, "roll"));
      assertEquals(2, tags(nodeA).size());
      waitFor("node B mirrors the step", () -> tags(nodeB).equals(tags(nodeA)));
      waitFor("node B's signer hears of it", () -> toldB.contains(ZONE));
      assertEquals(
          nodeA.keys(ZONE).orElseThrow().syncPublished(nodeA.now()).size(),
          nodeB.keys(ZONE).orElseThrow().syncPublished(nodeB.now()).size());
      nodeA.exchange().close();
      nodeB.exchange().close();
    }
  }
}
