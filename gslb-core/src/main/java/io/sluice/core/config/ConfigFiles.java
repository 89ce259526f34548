package io.sluice.core.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The files a configuration references for its content, which travel with it into the history and
 * to the other nodes of a cluster: zone master files ({@code zones[i].file}) and the GeoIP database
 * ({@code topology.geoip.database}). Node-local files (TLS keys, etcd credentials, the state
 * directory) are not among them: each node keeps its own.
 */
public final class ConfigFiles {
  private ConfigFiles() {}

  /** Each referenced file as the YAML writes it, keyed by its path in the configuration. */
  public static Map<String, String> referenced(SluiceConfig config) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < config.zones().size(); i++) {
      String file = config.zones().get(i).file();
      if (file != null && !file.isBlank()) {
        out.put(Problems.child(Problems.index("zones", i), "file"), file);
      }
    }
    GeoIpConfig geoip = config.topology().geoip();
    if (geoip != null && geoip.database() != null && !geoip.database().isBlank()) {
      out.put("topology.geoip.database", geoip.database());
    }
    return out;
  }

  /** {@code config} with every referenced file replaced by {@code map} of it. */
  public static SluiceConfig withFiles(SluiceConfig config, UnaryOperator<String> map) {
    List<ZoneConfig> zones = new ArrayList<>();
    for (ZoneConfig z : config.zones()) {
      zones.add(
          z.file() == null || z.file().isBlank()
              ? z
              : new ZoneConfig(
                  z.origin(),
                  map.apply(z.file()),
                  z.ttl(),
                  z.soa(),
                  z.ns(),
                  z.records(),
                  z.services(),
                  z.transfer(),
                  z.dnssec()));
    }
    TopologyConfig t = config.topology();
    GeoIpConfig g = t.geoip();
    if (g != null && g.database() != null && !g.database().isBlank()) {
      t =
          new TopologyConfig(
              t.defaultRegion(),
              t.networks(),
              new GeoIpConfig(map.apply(g.database()), g.rules()),
              t.residency());
    }
    return config.toBuilder().zones(zones).topology(t).build();
  }

  /** {@code config} with {@code cluster} as its cluster section (each node keeps its own). */
  public static SluiceConfig withCluster(SluiceConfig config, ClusterConfig cluster) {
    return config.toBuilder().cluster(cluster).build();
  }
}
