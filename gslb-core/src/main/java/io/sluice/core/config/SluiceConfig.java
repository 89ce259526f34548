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

  /** A configuration with the default {@code observability:} section. */
  public SluiceConfig(
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
      Path baseDir) {
    this(
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
        null,
        baseDir);
  }

  /** A configuration without a {@code notifications:} section. */
  public SluiceConfig(
      DnsConfig dns,
      AdminConfig admin,
      String stateDir,
      List<ZoneConfig> zones,
      Map<String, RegionConfig> regions,
      TopologyConfig topology,
      Map<String, PoolConfig> pools,
      ProbeConfig probes,
      ClusterConfig cluster,
      Path baseDir) {
    this(
        dns, admin, stateDir, zones, regions, topology, pools, probes, cluster, null, null,
        baseDir);
  }

  /** A single-node configuration (no {@code cluster:} section). */
  public SluiceConfig(
      DnsConfig dns,
      AdminConfig admin,
      String stateDir,
      List<ZoneConfig> zones,
      Map<String, RegionConfig> regions,
      TopologyConfig topology,
      Map<String, PoolConfig> pools,
      ProbeConfig probes,
      Path baseDir) {
    this(dns, admin, stateDir, zones, regions, topology, pools, probes, null, null, null, baseDir);
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
    return with(admin, pools, dir);
  }

  /** The same configuration with other admin settings. */
  public SluiceConfig withAdmin(AdminConfig newAdmin) {
    return with(newAdmin, pools, baseDir);
  }

  /** A copy with the settings the withers replace; every other section kept. */
  private SluiceConfig with(
      AdminConfig newAdmin, Map<String, PoolConfig> newPools, Path newBaseDir) {
    return new SluiceConfig(
        dns,
        newAdmin,
        stateDir,
        zones,
        regions,
        topology,
        newPools,
        probes,
        cluster,
        notifications,
        observability,
        newBaseDir);
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
    // Through the one copy helper: building it here with the older constructor reset the
    // notifications and observability sections to their defaults once any member existed.
    return changed ? with(admin, served, baseDir) : this;
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
