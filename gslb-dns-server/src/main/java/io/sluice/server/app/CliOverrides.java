package io.sluice.server.app;

import io.sluice.core.config.DnsConfig;
import io.sluice.core.config.SluiceConfig;
import java.util.List;

/** Command-line settings that win over the config file, on start and on every reload. */
public record CliOverrides(
    Integer port,
    List<String> listen,
    Integer threads,
    Integer adminPort,
    String stateDir,
    String nsid) {

  /** No overrides. */
  public static final CliOverrides NONE = new CliOverrides(null, null, null, null, null, null);

  public CliOverrides {
    listen = listen == null ? null : List.copyOf(listen);
  }

  /** {@code config} with these overrides applied. */
  public SluiceConfig apply(SluiceConfig config) {
    DnsConfig dns = config.dns();
    if (port != null) {
      dns = dns.withPort(port);
    }
    if (listen != null) {
      dns = dns.withListen(listen);
    }
    if (threads != null) {
      dns = dns.withThreads(threads);
    }
    if (nsid != null) {
      // Node-local: under a cluster's shared configuration every node would otherwise send the
      // same NSID, and `dig +nsid` could not tell the nodes of the NS set apart.
      dns = dns.withNsid(nsid);
    }
    return config.toBuilder()
        .dns(dns)
        .admin(adminPort == null ? config.admin() : config.admin().withPort(adminPort))
        .stateDir(stateDir == null ? config.stateDir() : stateDir)
        .build();
  }
}
