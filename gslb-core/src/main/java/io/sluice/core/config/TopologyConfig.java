package io.sluice.core.config;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a client address maps to a region: explicit network maps first (longest prefix wins), then
 * the GeoIP database if configured, then the default region. {@code residency} holds the named
 * residency rules that services apply with the chain step {@code residency(name)}.
 */
public record TopologyConfig(
    String defaultRegion,
    List<NetworkMapEntry> networks,
    GeoIpConfig geoip,
    Map<String, ResidencyConfig> residency) {

  public TopologyConfig {
    networks = Lists.copy(networks);
    residency = Lists.copyOrdered(residency);
  }

  /** A topology without residency rules. */
  public TopologyConfig(String defaultRegion, List<NetworkMapEntry> networks, GeoIpConfig geoip) {
    this(defaultRegion, networks, geoip, null);
  }

  public static TopologyConfig defaults() {
    return new TopologyConfig(null, null, null, null);
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
    residency.forEach(
        (name, rule) ->
            rule.validate(Problems.child(Problems.child(path, "residency"), name), root, p));
  }
}
