package io.sluice.core.config;

import java.util.List;

/**
 * A residency (compliance) rule: clients of {@code regions} may only be answered from {@code
 * pools}. Clients of other regions are not restricted by it. Services apply it with the chain step
 * {@code residency(name)}.
 */
public record ResidencyConfig(List<String> regions, List<String> pools) {

  public ResidencyConfig {
    regions = Lists.copy(regions);
    pools = Lists.copy(pools);
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (regions.isEmpty()) {
      p.add(Problems.child(path, "regions"), "at least one region is required");
    }
    for (int i = 0; i < regions.size(); i++) {
      if (!root.regions().containsKey(regions.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "regions"), i),
            "unknown region '" + regions.get(i) + "'");
      }
    }
    if (pools.isEmpty()) {
      p.add(Problems.child(path, "pools"), "at least one pool is required");
    }
    for (int i = 0; i < pools.size(); i++) {
      if (!root.pools().containsKey(pools.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "pools"), i),
            "unknown pool '" + pools.get(i) + "'");
      }
    }
  }
}
