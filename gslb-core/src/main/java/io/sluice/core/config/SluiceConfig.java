package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole validated configuration of one Sluice node, as read from YAML. Immutable; a reload
 * builds a new instance and swaps it in whole.
 */
public record SluiceConfig(
    DnsConfig dns,
    AdminConfig admin,
    String stateDir,
    List<ZoneConfig> zones,
    Map<String, RegionConfig> regions,
    TopologyConfig topology,
    Map<String, PoolConfig> pools,
    ProbeConfig probes,
    ClusterConfig cluster,
    NotificationsConfig notifications,
    ObservabilityConfig observability,
    @JsonIgnore Path baseDir) {

  public SluiceConfig {
    dns = dns == null ? DnsConfig.defaults() : dns;
    admin = admin == null ? AdminConfig.defaults() : admin;
    stateDir = stateDir == null ? "var/state" : stateDir;
    zones = Lists.copy(zones);
    regions = Lists.copyOrdered(regions);
    topology = topology == null ? TopologyConfig.defaults() : topology;
    pools = Lists.copyOrdered(pools);
    probes = probes == null ? ProbeConfig.defaults() : probes;
    notifications = notifications == null ? NotificationsConfig.defaults() : notifications;
    observability = observability == null ? ObservabilityConfig.defaults() : observability;
    baseDir = baseDir == null ? Path.of(".") : baseDir;
  }

  /** A configuration with every section at its default, to change with {@link #toBuilder}. */
  public static SluiceConfig defaults() {
    return builder().build();
  }

  /** A builder with every section at its default (a section left null gets its default). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every section of this configuration, to build a copy with some replaced. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.dns = dns;
    b.admin = admin;
    b.stateDir = stateDir;
    b.zones = zones;
    b.regions = regions;
    b.topology = topology;
    b.pools = pools;
    b.probes = probes;
    b.cluster = cluster;
    b.notifications = notifications;
    b.observability = observability;
    b.baseDir = baseDir;
    return b;
  }

  /**
   * Builds a configuration section by section, for code and tests that make one without YAML or
   * copy one with a few sections replaced; what is not set gets its default.
   */
  public static final class Builder {
    private DnsConfig dns;
    private AdminConfig admin;
    private String stateDir;
    private List<ZoneConfig> zones;
    private Map<String, RegionConfig> regions;
    private TopologyConfig topology;
    private Map<String, PoolConfig> pools;
    private ProbeConfig probes;
    private ClusterConfig cluster;
    private NotificationsConfig notifications;
    private ObservabilityConfig observability;
    private Path baseDir;

    private Builder() {}

    /** The {@code dns:} section. */
    public Builder dns(DnsConfig value) {
      dns = value;
      return this;
    }

    /** The {@code admin:} section. */
    public Builder admin(AdminConfig value) {
      admin = value;
      return this;
    }

    /** The {@code stateDir:} setting. */
    public Builder stateDir(String value) {
      stateDir = value;
      return this;
    }

    /** The {@code zones:} section. */
    public Builder zones(List<ZoneConfig> value) {
      zones = value;
      return this;
    }

    /** The {@code regions:} section. */
    public Builder regions(Map<String, RegionConfig> value) {
      regions = value;
      return this;
    }

    /** The {@code topology:} section. */
    public Builder topology(TopologyConfig value) {
      topology = value;
      return this;
    }

    /** The {@code pools:} section. */
    public Builder pools(Map<String, PoolConfig> value) {
      pools = value;
      return this;
    }

    /** The {@code probes:} section. */
    public Builder probes(ProbeConfig value) {
      probes = value;
      return this;
    }

    /** The {@code cluster:} section; null for a single node. */
    public Builder cluster(ClusterConfig value) {
      cluster = value;
      return this;
    }

    /** The {@code notifications:} section. */
    public Builder notifications(NotificationsConfig value) {
      notifications = value;
      return this;
    }

    /** The {@code observability:} section. */
    public Builder observability(ObservabilityConfig value) {
      observability = value;
      return this;
    }

    /** The directory relative paths are resolved against (the configuration file's). */
    public Builder baseDir(Path value) {
      baseDir = value;
      return this;
    }

    /** The configuration; sections not set get their defaults. */
    public SluiceConfig build() {
      return new SluiceConfig(
          dns,
          admin,
          stateDir,
          zones,
          regions,
          topology,
          pools,
          probes,
          cluster,
          notifications,
          observability,
          baseDir);
    }
  }

  /** Whether this node shares its state with the other nodes of a cluster (through etcd). */
  public boolean clustered() {
    return cluster != null;
  }

  /**
   * This node's name among the health vantages: {@code cluster.node} in a cluster (every node is a
   * vantage the others know by its node name), else {@code probes.vantage}.
   */
  public String localVantage() {
    return cluster != null && cluster.node() != null ? cluster.node() : probes().vantage();
  }

  /** The same configuration with relative paths resolved against {@code dir}. */
  public SluiceConfig withBaseDir(Path dir) {
    return toBuilder().baseDir(dir).build();
  }

  /** The same configuration with other admin settings. */
  public SluiceConfig withAdmin(AdminConfig newAdmin) {
    return toBuilder().admin(newAdmin).build();
  }

  /**
   * The configuration as it is served: every pool of this configuration with the dynamic {@code
   * members} added through the API after its own endpoints (a member named like an endpoint of the
   * file is left out; members of a pool the configuration does not have are not served). Returns
   * this configuration when there are none.
   */
  public SluiceConfig withDynamicMembers(Map<String, List<EndpointConfig>> members) {
    if (members.isEmpty()) {
      return this;
    }
    Map<String, PoolConfig> served = new java.util.LinkedHashMap<>(pools);
    boolean changed = false;
    for (Map.Entry<String, List<EndpointConfig>> e : members.entrySet()) {
      PoolConfig pc = pools.get(e.getKey());
      if (pc == null || e.getValue().isEmpty()) {
        continue;
      }
      java.util.Set<String> ids = new java.util.HashSet<>();
      pc.endpoints().forEach(x -> ids.add(x.id()));
      List<EndpointConfig> all = new java.util.ArrayList<>(pc.endpoints());
      for (EndpointConfig m : e.getValue()) {
        if (ids.add(m.id())) {
          all.add(m);
        }
      }
      served.put(
          e.getKey(),
          new PoolConfig(pc.region(), pc.location(), pc.capacity(), all, pc.health(), pc.load()));
      changed = true;
    }
    // A copy of every other section: building it from a shorter constructor once reset the
    // notifications and observability sections to their defaults once any member existed.
    return changed ? toBuilder().pools(served).build() : this;
  }

  /** Resolves a path from the configuration against the directory of the configuration file. */
  public Path resolve(String path) {
    return baseDir.resolve(path).normalize();
  }

  /** The state directory, resolved. */
  public Path stateDirectory() {
    return resolve(stateDir);
  }

  /** Every service of every zone, in declaration order. */
  public List<ServiceConfig> services() {
    List<ServiceConfig> all = new ArrayList<>();
    for (ZoneConfig z : zones) {
      all.addAll(z.services());
    }
    return all;
  }

  /** Checks everything that can be checked without the DNS wire format. */
  public void validate(Problems p) {
    dns.validate("dns", p);
    admin.validate("admin", p);
    admin.validateScopes("admin", this, p);
    if (stateDir.isBlank()) {
      p.add("stateDir", "must not be empty");
    }
    if (zones.isEmpty()) {
      p.add("zones", "at least one zone is required");
    }
    for (int i = 0; i < zones.size(); i++) {
      zones.get(i).validate(Problems.index("zones", i), this, p);
    }
    regions.forEach((name, r) -> r.validate(Problems.child("regions", name), this, p));
    topology.validate("topology", this, p);
    pools.forEach((name, pool) -> pool.validate(Problems.child("pools", name), this, p));
    probes.validate("probes", p);
    if (cluster != null) {
      cluster.validate("cluster", this, p);
    }
    notifications.validate("notifications", this, p);
    observability.validate("observability", p);
  }
}
