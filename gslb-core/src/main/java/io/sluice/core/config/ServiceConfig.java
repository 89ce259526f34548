package io.sluice.core.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A GSLB service: a name in a zone whose A/AAAA (or CNAME) answer is computed per query by the
 * policy chain over the service's pools. {@code crossRegionLimit} is the largest share (percent) of
 * a region's clients that may be answered from another region while the region's own pools are
 * usable; null means no limit. {@code fallback} is the fixed answer (addresses) a zone transfer
 * hands secondaries for this name, which cannot run the policy chain; empty: none, and the zone is
 * then not transferable. {@code shadow} is a candidate chain evaluated beside {@code chain} on a
 * sample of real queries without being served (docs/shadow.md); null: none.
 */
public record ServiceConfig(
    String name,
    Long ttl,
    List<ServicePoolConfig> pools,
    List<String> chain,
    Integer maxRecords,
    Boolean failOpen,
    LastResortConfig lastResort,
    TrafficConfig traffic,
    Integer crossRegionLimit,
    List<String> fallback,
    ShadowConfig shadow) {

  public ServiceConfig {
    ttl = ttl == null ? 60L : ttl;
    pools = Lists.copy(pools);
    chain = chain == null ? List.of("healthy", "geo", "weighted") : List.copyOf(chain);
    maxRecords = maxRecords == null ? 8 : maxRecords;
    failOpen = failOpen == null ? Boolean.TRUE : failOpen;
    lastResort = lastResort == null ? LastResortConfig.defaults() : lastResort;
    traffic = traffic == null ? TrafficConfig.defaults() : traffic;
    fallback = Lists.copy(fallback);
  }

  /** A service without a shadow chain. */
  public ServiceConfig(
      String name,
      Long ttl,
      List<ServicePoolConfig> pools,
      List<String> chain,
      Integer maxRecords,
      Boolean failOpen,
      LastResortConfig lastResort,
      TrafficConfig traffic,
      Integer crossRegionLimit,
      List<String> fallback) {
    this(
        name,
        ttl,
        pools,
        chain,
        maxRecords,
        failOpen,
        lastResort,
        traffic,
        crossRegionLimit,
        fallback,
        null);
  }

  /** The same service serving {@code newChain}, without a shadow (what a promotion makes). */
  public ServiceConfig promoted(List<String> newChain) {
    return new ServiceConfig(
        name,
        ttl,
        pools,
        newChain,
        maxRecords,
        failOpen,
        lastResort,
        traffic,
        crossRegionLimit,
        fallback,
        null);
  }

  /** The parsed shadow chain; only valid on a validated configuration with a shadow. */
  public List<ChainStep> shadowSteps() {
    return parse(shadow.chain());
  }

  /** A service without a fallback answer for secondaries. */
  public ServiceConfig(
      String name,
      Long ttl,
      List<ServicePoolConfig> pools,
      List<String> chain,
      Integer maxRecords,
      Boolean failOpen,
      LastResortConfig lastResort,
      TrafficConfig traffic,
      Integer crossRegionLimit) {
    this(
        name, ttl, pools, chain, maxRecords, failOpen, lastResort, traffic, crossRegionLimit, null);
  }

  /** A service without a cross-region limit. */
  public ServiceConfig(
      String name,
      Long ttl,
      List<ServicePoolConfig> pools,
      List<String> chain,
      Integer maxRecords,
      Boolean failOpen,
      LastResortConfig lastResort,
      TrafficConfig traffic) {
    this(name, ttl, pools, chain, maxRecords, failOpen, lastResort, traffic, null, null);
  }

  /** The parsed chain; only valid on a validated configuration. */
  public List<ChainStep> steps() {
    return parse(chain);
  }

  private static List<ChainStep> parse(List<String> steps) {
    List<ChainStep> out = new ArrayList<>(steps.size());
    for (String s : steps) {
      out.add(ChainStep.parse(s));
    }
    return List.copyOf(out);
  }

  /**
   * The absolute, lower-case owner name of this service in zone {@code origin}. Interned: the zone
   * node, the policy planner and the meters each key the service by it, and on the query path a map
   * look-up that meets the same instance compares no characters.
   */
  public String fqdn(String origin) {
    return DomainNames.absolute(name, origin).intern();
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
    if (crossRegionLimit != null) {
      p.range(Problems.child(path, "crossRegionLimit"), crossRegionLimit, 0, 100);
    }
    if (chain.isEmpty()) {
      p.add(Problems.child(path, "chain"), "at least one step is required");
    }
    validateChain(Problems.child(path, "chain"), chain, root, p);
    if (shadow != null) {
      String sp = Problems.child(path, "shadow");
      shadow.validate(sp, p);
      if (!shadow.chain().isEmpty()) {
        validateChain(Problems.child(sp, "chain"), shadow.chain(), root, p);
      }
    }
    lastResort.validate(Problems.child(path, "lastResort"), p);
    for (int i = 0; i < fallback.size(); i++) {
      if (!Addresses.isLiteral(fallback.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "fallback"), i),
            "must be an IP address, was '" + fallback.get(i) + "'");
      }
    }
    traffic.validate(Problems.child(path, "traffic"), p);
  }

  private void validateChain(String path, List<String> chain, SluiceConfig root, Problems p) {
    Set<String> seen = new HashSet<>();
    String balancer = null;
    boolean preference = false;
    for (int i = 0; i < chain.size(); i++) {
      String sp = Problems.index(path, i);
      ChainStep step;
      try {
        step = ChainStep.parse(chain.get(i));
      } catch (IllegalArgumentException e) {
        p.add(sp, e.getMessage());
        continue;
      }
      String key = step.name().equals("residency") ? step.toString() : step.name();
      if (!seen.add(key)) {
        p.add(sp, "step '" + key + "' appears twice");
      }
      if (i == 0 && !step.name().equals("healthy")) {
        p.add(sp, "the first step must be 'healthy', was '" + step.name() + "'");
      }
      if (ChainStep.RED_LINES.contains(step.name())) {
        if (preference) {
          p.add(sp, "red-line step '" + step.name() + "' must come before every other step");
        }
      } else {
        preference = true;
      }
      if (balancer != null && !step.name().equals("limit")) {
        p.add(sp, "only 'limit' may follow the balancing step '" + balancer + "'");
      }
      if (ChainStep.BALANCERS.contains(step.name())) {
        balancer = step.name();
      }
      if (step.name().equals("residency")) {
        validateResidency(sp, step.arg(null), root, p);
      }
    }
  }

  private void validateResidency(String path, String rule, SluiceConfig root, Problems p) {
    ResidencyConfig r = root.topology().residency().get(rule);
    if (r == null) {
      p.add(
          path,
          "unknown residency rule '"
              + rule
              + "' (defined rules: "
              + String.join(", ", root.topology().residency().keySet())
              + ")");
      return;
    }
    boolean any = pools.stream().anyMatch(sp -> r.pools().contains(sp.pool()));
    if (!any) {
      p.add(
          path,
          "residency rule '"
              + rule
              + "' can never be satisfied: none of its pools "
              + r.pools()
              + " serves this service");
    }
  }
}
