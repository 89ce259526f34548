package io.sluice.core.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How a client address maps to a region: explicit network maps first (longest prefix wins), then
 * the GeoIP database if configured, then the default region.
 */
public record TopologyConfig(
    String defaultRegion, List<NetworkMapEntry> networks, GeoIpConfig geoip) {

  public TopologyConfig {
    networks = Lists.copy(networks);
  }

  public static TopologyConfig defaults() {
    return new TopologyConfig(null, null, null);
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (defaultRegion != null && !root.regions().containsKey(defaultRegion)) {
      p.add(Problems.child(path, "defaultRegion"), "unknown region '" + defaultRegion + "'");
    }
    Set<String> cidrs = new HashSet<>();
    for (int i = 0; i < networks.size(); i++) {
      String np = Problems.index(Problems.child(path, "networks"), i);
      NetworkMapEntry n = networks.get(i);
      n.validate(np, root, p);
      if (n.cidr() != null && !cidrs.add(n.cidr())) {
        p.add(Problems.child(np, "cidr"), "duplicate network '" + n.cidr() + "'");
      }
    }
    if (geoip != null) {
      geoip.validate(Problems.child(path, "geoip"), root, p);
    }
  }
}
