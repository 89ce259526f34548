package io.sluice.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.SluiceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Builds the etcd client of a node from its {@code cluster:} section: the members' endpoints, TLS
 * (CA, optional client certificate), user and password, and the cluster's key prefix as the client
 * namespace, so every key the node reads or writes lives under that prefix and one etcd can serve
 * several Sluice clusters.
 */
public final class EtcdClients {
  private EtcdClients() {}

  /** A client for {@code config}'s cluster; relative file paths resolve against the config file. */
  public static Client create(SluiceConfig config) throws IOException {
    ClusterConfig cluster = config.cluster();
    if (cluster == null) {
      throw new IllegalArgumentException("the configuration has no cluster section");
    }
    ClusterConfig.EtcdConfig etcd = cluster.etcd();
    ClientBuilder b =
        Client.builder()
            .endpoints(etcd.endpoints().toArray(String[]::new))
            .namespace(bytes(etcd.prefix() + "/"))
            .connectTimeout(etcd.timeout())
            .keepaliveTime(Duration.ofSeconds(2))
            .keepaliveTimeout(etcd.timeout())
            .keepaliveWithoutCalls(true)
            // Retries are bounded so that a lost majority surfaces as an error, not a hang.
            .retryMaxDuration(etcd.timeout());
    if (etcd.tls() != null) {
      ClusterConfig.EtcdTls tls = etcd.tls();
      Path ca = config.resolve(tls.caFile());
      Path cert = tls.certFile() == null ? null : config.resolve(tls.certFile());
      Path key = tls.keyFile() == null ? null : config.resolve(tls.keyFile());
      b.sslContext(
          ssl -> {
            ssl.trustManager(ca.toFile());
            if (cert != null) {
              ssl.keyManager(cert.toFile(), key.toFile());
            }
          });
    }
    if (etcd.user() != null) {
      String password = Files.readString(config.resolve(etcd.passwordFile())).strip();
      b.user(bytes(etcd.user())).password(bytes(password));
    }
    return b.build();
  }

  /** UTF-8 bytes as etcd keys and values take them. */
  public static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
