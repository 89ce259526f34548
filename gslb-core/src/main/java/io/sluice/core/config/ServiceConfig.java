package io.sluice.core.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A GSLB service: a name in a zone whose A/AAAA (or CNAME) answer is computed per query by the
 * policy chain over the service's pools.
 */
public record ServiceConfig(
    String name,
    Long ttl,
    List<ServicePoolConfig> pools,
    List<String> chain,
    Integer maxRecords,
    Boolean failOpen,
    LastResortConfig lastResort,
    TrafficConfig traffic) {

  public ServiceConfig {
    ttl = ttl == null ? 60L : ttl;
    pools = Lists.copy(pools);
    chain = chain == null ? List.of("healthy", "geo", "weighted") : List.copyOf(chain);
    maxRecords = maxRecords == null ? 8 : maxRecords;
    failOpen = failOpen == null ? Boolean.TRUE : failOpen;
    lastResort = lastResort == null ? LastResortConfig.defaults() : lastResort;
    traffic = traffic == null ? TrafficConfig.defaults() : traffic;
  }

  /** The absolute, lower-case owner name of this service in zone {@code origin}. */
  public String fqdn(String origin) {
    return DomainNames.absolute(name, origin);
  }

  void validate(String path, String origin, SluiceConfig root, Problems p) {
    if (p.required(Problems.child(path, "name"), name)) {
      String fq = DomainNames.absolute(name, origin);
      String why = DomainNames.problem(fq);
      if (why != null) {
        p.add(Problems.child(path, "name"), why);
      } else if (!DomainNames.isAtOrBelow(fq, origin)) {
        p.add(Problems.child(path, "name"), "'" + name + "' is outside the zone " + origin);
      }
    }
    p.range(Problems.child(path, "ttl"), ttl, 0, Integer.MAX_VALUE);
    p.range(Problems.child(path, "maxRecords"), maxRecords, 1, 64);
    if (pools.isEmpty()) {
      p.add(Problems.child(path, "pools"), "at least one pool is required");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < pools.size(); i++) {
      String pp = Problems.index(Problems.child(path, "pools"), i);
      ServicePoolConfig sp = pools.get(i);
      sp.validate(pp, root, p);
      if (sp.pool() != null && !seen.add(sp.pool())) {
        p.add(Problems.child(pp, "pool"), "pool '" + sp.pool() + "' is listed twice");
      }
    }
    if (!pools.isEmpty()
        && pools.stream().allMatch(sp -> sp.weight() != null && sp.weight() == 0)) {
      p.add(Problems.child(path, "pools"), "weights are all zero: no pool could ever be chosen");
    }
    if (chain.isEmpty()) {
      p.add(Problems.child(path, "chain"), "at least one step is required");
    }
    lastResort.validate(Problems.child(path, "lastResort"), p);
    traffic.validate(Problems.child(path, "traffic"), p);
  }
}
