package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.etcd.jetcd.Client;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.spi.CookieSecretExchange.Secrets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The cookie secrets on a real etcd: the first node's seed becomes the cluster's, a later node
 * takes it over instead of its own, a rotation on one node reaches the other, and a node cut off
 * from etcd keeps the last secrets it knew and catches up when etcd is back.
 */
class EtcdCookieSecretsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private static byte[] secret(int fill) {
    byte[] b = new byte[Secrets.LENGTH];
    Arrays.fill(b, (byte) fill);
    return b;
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

  @Test
  void firstSeedWinsRotationReachesEveryNodeAndACutOffNodeKeepsItsSecret() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1);
        Client clientA = EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/c"));
        Client clientB =
            EtcdClients.create(EtcdClientsTest.config(etcd.endpoints(), "/sluice/c"))) {
      AtomicReference<Secrets> heardA = new AtomicReference<>();
      AtomicReference<Secrets> heardB = new AtomicReference<>();
      Secrets seedA = new Secrets(secret(1), null);
      Secrets seedB = new Secrets(secret(2), null);
      try (EtcdCookieSecrets a = EtcdCookieSecrets.create(clientA, TIMEOUT);
          EtcdCookieSecrets b = EtcdCookieSecrets.create(clientB, TIMEOUT)) {
        a.start(seedA, heardA::set);
        waitFor("node A publishes its seed", () -> seedA.equals(heardA.get()));
        b.start(seedB, heardB::set);
        waitFor("node B takes the cluster's secret", () -> seedA.equals(heardB.get()));

        Secrets rotated = b.rotate(secret(3));
        assertEquals(new Secrets(secret(3), secret(1)), rotated);
        waitFor("node A hears B's rotation", () -> rotated.equals(heardA.get()));
        waitFor("node B hears its own rotation", () -> rotated.equals(heardB.get()));

        etcd.kill(0);
        Thread.sleep(TIMEOUT.toMillis() * 2);
        assertEquals(rotated, heardA.get(), "cut off, A keeps the secrets it knew");
        try {
          a.rotate(secret(4));
          fail("a rotation needs etcd");
        } catch (java.io.IOException expected) {
          assertEquals(rotated, heardA.get());
        }
        etcd.restart(0);
        etcd.awaitHealthy();
        // A rotation is refused while the client has not reconnected yet; then it goes through.
        Secrets again = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (again == null) {
          try {
            again = a.rotate(secret(5));
          } catch (java.io.IOException reconnecting) {
            if (System.nanoTime() > deadline) {
              throw reconnecting;
            }
            Thread.sleep(100);
          }
        }
        assertEquals(new Secrets(secret(5), secret(3)), again);
        Secrets rotatedAgain = again;
        waitFor("A hears it", () -> rotatedAgain.equals(heardA.get()));
        waitFor("B catches up after the outage", () -> rotatedAgain.equals(heardB.get()));
      }
    }
  }

  @Test
  void secretsRoundTripThroughTheKeyFormat() {
    Secrets s = new Secrets(secret(7), secret(8));
    assertEquals(s, EtcdCookieSecrets.decode(EtcdCookieSecrets.encode(s)));
    Secrets only = new Secrets(secret(9), null);
    assertNull(EtcdCookieSecrets.decode(EtcdCookieSecrets.encode(only)).previous());
  }
}
