package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The {@code cluster:} section: this node's name and region, and the etcd cluster the nodes of one
 * NS set share their operator state, health opinions, leader and configuration through. Absent, the
 * node is a single node on its embedded file store.
 */
public record ClusterConfig(
    String node,
    String region,
    EtcdConfig etcd,
    Duration leaseTtl,
    Advertise advertise,
    DivergenceConfig divergence,
    ConfigSource config) {

  private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

  /** Where the nodes of a cluster take their configuration from. */
  public enum ConfigSource {
    /** {@code config: shared}: the nodes run the configuration versions kept in etcd. */
    @JsonProperty("shared")
    SHARED,
    /** {@code config: local}: each node runs its own file, its history in its state directory. */
    @JsonProperty("local")
    LOCAL;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ClusterConfig {
    leaseTtl = leaseTtl == null ? Duration.ofSeconds(5) : leaseTtl;
    advertise = advertise == null ? new Advertise(null, null) : advertise;
    divergence = divergence == null ? DivergenceConfig.defaults() : divergence;
    config = config == null ? ConfigSource.SHARED : config;
  }

  /** A cluster section whose nodes share their configuration through etcd. */
  public ClusterConfig(
      String node,
      String region,
      EtcdConfig etcd,
      Duration leaseTtl,
      Advertise advertise,
      DivergenceConfig divergence) {
    this(node, region, etcd, leaseTtl, advertise, divergence, null);
  }

  /** Whether the nodes run the configuration versions kept in etcd (the default). */
  public boolean sharedConfig() {
    return config == ConfigSource.SHARED;
  }

  /** The key prefix of this cluster in etcd (never ends with a slash). */
  public String prefix() {
    return etcd == null ? EtcdConfig.DEFAULT_PREFIX : etcd.prefix();
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (p.required(Problems.child(path, "node"), node) && !NODE_NAME.matcher(node).matches()) {
      p.add(
          Problems.child(path, "node"),
          "must be 1-63 lower-case letters, digits or '-' (not at either end), was '" + node + "'");
    }
    if (region != null && !root.regions().isEmpty() && !root.regions().containsKey(region)) {
      p.add(Problems.child(path, "region"), "unknown region '" + region + "'");
    }
    if (p.required(Problems.child(path, "etcd"), etcd)) {
      etcd.validate(Problems.child(path, "etcd"), p);
    }
    if (leaseTtl.compareTo(Duration.ofSeconds(2)) < 0
        || leaseTtl.compareTo(Duration.ofSeconds(60)) > 0) {
      p.add(
          Problems.child(path, "leaseTtl"),
          "must be between 2s and 60s, was " + DurationParser.format(leaseTtl));
    }
    advertise.validate(Problems.child(path, "advertise"), p);
    divergence.validate(Problems.child(path, "divergence"), p);
  }

  /** Where the etcd members are and how to authenticate to them. */
  public record EtcdConfig(
      List<String> endpoints,
      String prefix,
      EtcdTls tls,
      String user,
      String passwordFile,
      Duration timeout) {
    static final String DEFAULT_PREFIX = "/sluice";

    public EtcdConfig {
      endpoints = Lists.copy(endpoints);
      prefix = prefix == null ? DEFAULT_PREFIX : prefix;
      timeout = timeout == null ? Duration.ofSeconds(2) : timeout;
    }

    void validate(String path, Problems p) {
      if (endpoints.isEmpty()) {
        p.add(Problems.child(path, "endpoints"), "at least one etcd endpoint is required");
      }
      for (int i = 0; i < endpoints.size(); i++) {
        String e = endpoints.get(i);
        String at = Problems.index(Problems.child(path, "endpoints"), i);
        try {
          URI u = URI.create(e);
          if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())
              || u.getHost() == null
              || u.getPort() < 0) {
            p.add(at, "must be http://HOST:PORT or https://HOST:PORT, was '" + e + "'");
          } else if ("https".equals(u.getScheme()) != (tls != null)) {
            p.add(
                at,
                tls == null
                    ? "is https but cluster.etcd.tls is not set"
                    : "is http but cluster.etcd.tls is set: use https");
          }
        } catch (IllegalArgumentException ex) {
          p.add(at, "is not a URL: '" + e + "'");
        }
      }
      if (!prefix.startsWith("/") || prefix.endsWith("/") || prefix.contains("//")) {
        p.add(
            Problems.child(path, "prefix"),
            "must start with '/' and not end with '/', for example /sluice/prod, was '"
                + prefix
                + "'");
      }
      if (tls != null) {
        tls.validate(Problems.child(path, "tls"), p);
      }
      if ((user == null) != (passwordFile == null)) {
        p.add(
            Problems.child(path, user == null ? "user" : "passwordFile"),
            "is required when " + (user == null ? "passwordFile" : "user") + " is set");
      }
      if (timeout.isNegative()
          || timeout.isZero()
          || timeout.compareTo(Duration.ofSeconds(30)) > 0) {
        p.add(
            Problems.child(path, "timeout"),
            "must be between 1ms and 30s, was " + DurationParser.format(timeout));
      }
    }
  }

  /**
   * TLS towards etcd: the CA that signed the members' certificates, and an optional client cert.
   */
  public record EtcdTls(String caFile, String certFile, String keyFile) {
    void validate(String path, Problems p) {
      p.required(Problems.child(path, "caFile"), caFile);
      if ((certFile == null) != (keyFile == null)) {
        p.add(
            Problems.child(path, certFile == null ? "certFile" : "keyFile"),
            "is required when " + (certFile == null ? "keyFile" : "certFile") + " is set");
      }
    }
  }

  /**
   * How other nodes and {@code sluice ctl} reach this node (HOST:PORT for DNS, a URL for the admin
   * API); by default the listen addresses, with wildcards as loopback.
   */
  public record Advertise(String dns, String admin) {
    void validate(String path, Problems p) {
      if (dns != null && !dns.matches("\\[?[0-9A-Za-z.:-]+]?:[0-9]{1,5}")) {
        p.add(Problems.child(path, "dns"), "must be HOST:PORT, was '" + dns + "'");
      }
      if (admin != null && !admin.matches("https?://.+:[0-9]{1,5}/?")) {
        p.add(Problems.child(path, "admin"), "must be http(s)://HOST:PORT, was '" + admin + "'");
      }
    }
  }

  /** The periodic answer-divergence check: how often, and over how many client subnets. */
  public record DivergenceConfig(Duration interval, Integer subnets) {
    public DivergenceConfig {
      interval = interval == null ? Duration.ofSeconds(60) : interval;
      subnets = subnets == null ? 256 : subnets;
    }

    static DivergenceConfig defaults() {
      return new DivergenceConfig(null, null);
    }

    void validate(String path, Problems p) {
      if (!interval.isZero() && interval.compareTo(Duration.ofSeconds(5)) < 0) {
        p.add(
            Problems.child(path, "interval"),
            "must be 0 (off) or at least 5s, was " + DurationParser.format(interval));
      }
      p.range(Problems.child(path, "subnets"), subnets, 1, 100_000);
    }
  }
}
