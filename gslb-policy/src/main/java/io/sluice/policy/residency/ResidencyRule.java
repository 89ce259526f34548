package io.sluice.policy.residency;

import io.sluice.core.config.ResidencyConfig;
import io.sluice.policy.PoolTable;
import io.sluice.policy.RegionGraph;

/**
 * Chain step {@code residency(rule)} (a red line), compiled for one service: clients of the rule's
 * regions may only be answered from the rule's pools; other clients are not restricted. It is never
 * broken: when it leaves no pool, the service's last resort answers.
 *
 * @param name the rule's name
 * @param regions bit set of the region indexes the rule binds
 * @param pools bit set of the service's pools the rule allows
 */
public record ResidencyRule(String name, long regions, long pools) {

  /** Compiles rule {@code name} for a service with pools {@code table}. */
  public static ResidencyRule compile(
      String name, ResidencyConfig rule, RegionGraph graph, PoolTable table) {
    long regions = 0;
    for (String r : rule.regions()) {
      regions |= 1L << graph.indexOf(r);
    }
    long pools = 0;
    for (int p = 0; p < table.size(); p++) {
      if (rule.pools().contains(table.names().get(p))) {
        pools |= 1L << p;
      }
    }
    return new ResidencyRule(name, regions, pools);
  }

  /** The pools clients of {@code region} may get, out of {@code all}. */
  public long allowed(int region, long all) {
    return region < 64 && (regions & (1L << region)) != 0 ? all & pools : all;
  }
}
