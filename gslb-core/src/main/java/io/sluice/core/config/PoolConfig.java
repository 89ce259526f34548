package io.sluice.core.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A place that can serve services: a data centre, region or cluster with its endpoints. */
public record PoolConfig(
    String region,
    GeoPoint location,
    Long capacity,
    List<EndpointConfig> endpoints,
    HealthConfig health,
    PoolLoadConfig load) {

  public PoolConfig {
    endpoints = Lists.copy(endpoints);
    health = health == null ? HealthConfig.defaults() : health;
    load = load == null ? PoolLoadConfig.defaults() : load;
  }

  /** A pool whose load is only pushed, with the default staleness. */
  public PoolConfig(
      String region,
      GeoPoint location,
      Long capacity,
      List<EndpointConfig> endpoints,
      HealthConfig health) {
    this(region, location, capacity, endpoints, health, null);
  }

  /** The key under which endpoint {@code e} of pool {@code pool} is known to health and state. */
  public static String endpointKey(String pool, EndpointConfig e) {
    return pool + "/" + e.id();
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (region != null && !root.regions().isEmpty() && !root.regions().containsKey(region)) {
      p.add(Problems.child(path, "region"), "unknown region '" + region + "'");
    }
    if (location != null) {
      location.validate(Problems.child(path, "location"), p);
    }
    if (capacity != null) {
      p.range(Problems.child(path, "capacity"), capacity, 1, Long.MAX_VALUE);
    }
    if (endpoints.isEmpty()) {
      p.add(Problems.child(path, "endpoints"), "at least one endpoint is required");
    }
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < endpoints.size(); i++) {
      String ep = Problems.index(Problems.child(path, "endpoints"), i);
      EndpointConfig e = endpoints.get(i);
      e.validate(ep, p);
      if (e.cname() != null) {
        HealthConfig h = e.health() != null ? e.health() : health;
        h.validateForCname(Problems.child(ep, "health"), p);
      }
      if (e.id() != null && !ids.add(e.id())) {
        p.add(ep, "duplicate endpoint '" + e.id() + "'");
      }
    }
    health.validate(Problems.child(path, "health"), p);
    load.validate(Problems.child(path, "load"), p);
  }
}
