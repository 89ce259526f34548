package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.testing.LoopbackPorts;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster section's TLS and authentication (docs/cluster.md) against a real etcd member that
 * requires client certificates and has authentication enabled: a node with the CA, its client
 * certificate and its user's password file reads and writes under its prefix; the same user outside
 * the prefix its role grants is refused, and so is a client without a certificate.
 */
class EtcdTlsAuthTest {
  @TempDir Path dir;

  private void openssl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl failed: " + out);
  }

  /** A key and a certificate signed by the test CA; {@code ext} the X.509 v3 extensions. */
  private void signed(String name, String cn, String ext) throws Exception {
    Files.writeString(dir.resolve(name + ".ext"), ext + "\n");
    openssl(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr",
        "-subj",
        "/CN=" + cn);
    openssl(
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        name + ".pem",
        "-days",
        "1",
        "-extfile",
        name + ".ext");
  }

  private SluiceConfig config(String endpoint, String prefix, boolean clientCert, String user) {
    ClusterConfig.EtcdTls tls =
        new ClusterConfig.EtcdTls(
            dir.resolve("ca.pem").toString(),
            clientCert ? dir.resolve("client.pem").toString() : null,
            clientCert ? dir.resolve("client.key").toString() : null);
    ClusterConfig cluster =
        new ClusterConfig(
            "ns1",
            null,
            new ClusterConfig.EtcdConfig(
                List.of(endpoint),
                prefix,
                tls,
                user,
                user == null ? null : dir.resolve("password").toString(),
                null),
            null,
            null,
            null);
    return SluiceConfig.builder().cluster(cluster).build();
  }

  private static ByteSequence b(String s) {
    return EtcdClients.bytes(s);
  }

  @Test
  void aNodeWithItsCertificateAndPasswordUsesItsPrefixAndNothingElse() throws Exception {
    EtcdCluster.requireEtcd();
    assumeTrue(
        new ProcessBuilder("openssl", "version").start().waitFor() == 0,
        "SKIPPED: openssl is needed to make the test certificates");
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "1",
        "-subj",
        "/CN=sluice-test-ca");
    signed("server", "etcd", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth");
    signed("client", "sluice-ns1", "extendedKeyUsage=clientAuth");
    Files.writeString(dir.resolve("password"), "ns1-secret\n");

    int client = LoopbackPorts.reserve();
    int peer = LoopbackPorts.reserve();
    String endpoint = "https://127.0.0.1:" + client;
    Process etcd =
        new ProcessBuilder(
                "etcd",
                "--name",
                "m0",
                "--data-dir",
                dir.resolve("data").toString(),
                "--listen-client-urls",
                endpoint,
                "--advertise-client-urls",
                endpoint,
                "--listen-peer-urls",
                "http://127.0.0.1:" + peer,
                "--initial-advertise-peer-urls",
                "http://127.0.0.1:" + peer,
                "--initial-cluster",
                "m0=http://127.0.0.1:" + peer,
                "--cert-file",
                dir.resolve("server.pem").toString(),
                "--key-file",
                dir.resolve("server.key").toString(),
                "--trusted-ca-file",
                dir.resolve("ca.pem").toString(),
                "--client-cert-auth")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("etcd.log").toFile())
            .start();
    try {
      awaitListening(etcd, client);
      // The documented setup: a root user, authentication on, one role per cluster prefix.
      try (Client admin = EtcdClients.create(config(endpoint, "/admin", true, null))) {
        var auth = admin.getAuthClient();
        auth.userAdd(b("root"), b("root-secret")).get(20, TimeUnit.SECONDS);
        auth.userGrantRole(b("root"), b("root")).get(20, TimeUnit.SECONDS);
        auth.roleAdd(b("sluice-prod")).get(20, TimeUnit.SECONDS);
        auth.roleGrantPermission(
                b("sluice-prod"), b("/sluice/prod/"), b("/sluice/prod0"), Permission.Type.READWRITE)
            .get(20, TimeUnit.SECONDS);
        auth.userAdd(b("sluice-ns1"), b("ns1-secret")).get(20, TimeUnit.SECONDS);
        auth.userGrantRole(b("sluice-ns1"), b("sluice-prod")).get(20, TimeUnit.SECONDS);
        auth.authEnable().get(20, TimeUnit.SECONDS);
      }

      try (Client node = EtcdClients.create(config(endpoint, "/sluice/prod", true, "sluice-ns1"))) {
        node.getKVClient().put(b("state"), b("s1")).get(20, TimeUnit.SECONDS);
        assertEquals(
            "s1",
            node.getKVClient()
                .get(b("state"))
                .get(20, TimeUnit.SECONDS)
                .getKvs()
                .get(0)
                .getValue()
                .toString(StandardCharsets.UTF_8));
      }
      try (Client outside =
          EtcdClients.create(config(endpoint, "/sluice/staging", true, "sluice-ns1"))) {
        ExecutionException e =
            assertThrows(
                ExecutionException.class,
                () -> outside.getKVClient().put(b("state"), b("x")).get(20, TimeUnit.SECONDS));
        assertTrue(
            e.getCause().getMessage().contains("permission denied"), e.getCause().getMessage());
      }
      try (Client noCert = EtcdClients.create(config(endpoint, "/sluice/prod", false, null))) {
        assertThrows(
            Exception.class,
            () -> noCert.getKVClient().get(b("state")).get(10, TimeUnit.SECONDS),
            "a client without a certificate is refused");
      }
    } finally {
      etcd.destroyForcibly();
      etcd.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private void awaitListening(Process etcd, int port) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      assertTrue(etcd.isAlive(), () -> "etcd exited: " + log());
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("etcd did not listen: " + log());
  }

  private String log() {
    try {
      return Files.readString(dir.resolve("etcd.log"));
    } catch (IOException e) {
      return e.toString();
    }
  }
}
