package io.sluice.admin.rest;

import io.sluice.core.config.Cidr;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.divergence.ClientSubnets;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.PoolLoad;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders parts of a snapshot as JSON-ready maps and resolves names given in requests. */
final class StateViews {
  private StateViews() {}

  /** The FQDN of a configured service named {@code name} (with or without the final dot). */
  static String service(Snapshot s, String name, String field) {
    if (name == null || name.isBlank()) {
      throw ApiException.badRequest(field, "is required");
    }
    String fq = serviceName(name);
    for (ZoneConfig z : s.config().zones()) {
      for (ServiceConfig svc : z.services()) {
        if (svc.fqdn(z.origin()).equals(fq)) {
          return fq;
        }
      }
    }
    throw ApiException.notFound(field, "no service '" + name + "'");
  }

  /**
   * A service name in canonical form (lower case, final dot), or null. Unlike {@link #service} it
   * need not be configured: the audit log and switch records outlive removed services.
   */
  static String serviceName(String name) {
    if (name == null || name.isBlank()) {
      return null;
    }
    String fq = name.toLowerCase(Locale.ROOT);
    return fq.endsWith(".") ? fq : fq + ".";
  }

  /** The configuration of service {@code fqdn}. */
  static ServiceConfig serviceConfig(Snapshot s, String fqdn) {
    for (ZoneConfig z : s.config().zones()) {
      for (ServiceConfig svc : z.services()) {
        if (svc.fqdn(z.origin()).equals(fqdn)) {
          return svc;
        }
      }
    }
    throw ApiException.notFound("service", "no service '" + fqdn + "'");
  }

  /** Checks that {@code pool} is configured. */
  static String pool(Snapshot s, String pool, String field) {
    if (pool == null || !s.config().pools().containsKey(pool)) {
      throw ApiException.notFound(field, "no pool '" + pool + "'");
    }
    return pool;
  }

  static Map<String, Object> versions(Snapshot s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("snapshotVersion", s.version());
    m.put("configVersion", s.configVersion());
    m.put("healthVersion", s.health().version());
    return m;
  }

  static List<Map<String, Object>> zones(Snapshot s) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ZoneConfig z : s.config().zones()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("origin", z.origin());
      m.put("ttl", z.ttl());
      m.put("ns", z.ns());
      m.put("records", z.records().size());
      List<String> services = new ArrayList<>();
      z.services().forEach(svc -> services.add(svc.fqdn(z.origin())));
      m.put("services", services);
      out.add(m);
    }
    return out;
  }

  static Map<String, Object> service(Snapshot s, String fqdn) {
    ServiceConfig svc = serviceConfig(s, fqdn);
    ServicePlan plan = s.traffic().plan(fqdn);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", fqdn);
    m.put("ttl", svc.ttl());
    m.put("shiftTtl", svc.traffic().shiftTtl());
    m.put("chain", svc.chain());
    // The candidate chain evaluated beside it (null: none); its report is at /shadow/{service}.
    m.put("shadow", svc.shadow());
    m.put("mode", svc.traffic().mode().toString());
    List<Map<String, Object>> pools = new ArrayList<>();
    for (ServicePoolConfig sp : svc.pools()) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("pool", sp.pool());
      p.put("configuredWeight", sp.weight());
      p.put("weight", plan.weights().getOrDefault(sp.pool(), sp.weight()));
      p.put("drained", s.traffic().drained().contains(sp.pool()));
      pools.add(p);
    }
    m.put("pools", pools);
    List<Map<String, Object>> shifts = new ArrayList<>();
    for (Shift sh : plan.shifts()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("id", sh.id());
      x.put("from", sh.from());
      x.put("to", sh.to());
      x.put("percent", sh.percent());
      shifts.add(x);
    }
    m.put("shifts", shifts);
    m.put("ttlOverride", plan.ttlOverride());
    m.put("frozen", plan.frozen());
    m.put("globallyFrozen", s.traffic().frozen());
    return m;
  }

  static List<Map<String, Object>> services(Snapshot s) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ZoneConfig z : s.config().zones()) {
      for (ServiceConfig svc : z.services()) {
        out.add(service(s, svc.fqdn(z.origin())));
      }
    }
    return out;
  }

  static Map<String, Object> pool(Snapshot s, String name) {
    PoolConfig pool = s.config().pools().get(name);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("region", pool.region());
    m.put("capacity", pool.capacity());
    m.put("drained", s.traffic().drained().contains(name));
    m.put("load", load(s, name, s.health().poolLoads().get(name)));
    List<Map<String, Object>> endpoints = new ArrayList<>();
    for (EndpointConfig e : pool.endpoints()) {
      String key = PoolConfig.endpointKey(name, e);
      EndpointHealth h = s.health().get(key);
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("name", e.id());
      x.put("key", key);
      x.put("address", e.address());
      x.put("cname", e.cname());
      x.put("weight", e.weight());
      x.put("drained", s.traffic().drained().contains(key));
      x.put("verdict", h.verdict().name().toLowerCase(Locale.ROOT));
      x.put("sinceMillis", h.sinceMillis());
      x.put("reason", h.reason());
      x.put("stale", h.stale());
      x.put("rttP50Millis", finite(h.rttP50Millis()));
      x.put("rttP99Millis", finite(h.rttP99Millis()));
      x.put("errorRate", finite(h.errorRate()));
      // In a cluster: per region, the RTT measured from a node there (what the latency step uses).
      x.put("regionRttMillis", h.regionRttMillis());
      endpoints.add(x);
    }
    m.put("endpoints", endpoints);
    return m;
  }

  /**
   * A pool's last reported load for the capacity step, or null when none: value, source, time, the
   * pool's staleAfter and whether it is stale (then the capacity step ignores it).
   */
  static Map<String, Object> load(Snapshot s, String pool, PoolLoad l) {
    if (l == null) {
      return null;
    }
    PoolConfig pc = s.config().pools().get(pool);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("value", l.value());
    m.put("source", l.source().name().toLowerCase(Locale.ROOT));
    m.put("reportedMillis", l.reportedMillis());
    m.put("staleAfterSeconds", pc == null ? null : pc.load().staleAfter().toSeconds());
    m.put("stale", l.stale());
    if (pc != null && pc.capacity() != null) {
      m.put("percentOfCapacity", Math.round(l.value() * 1000 / pc.capacity()) / 10.0);
    }
    return m;
  }

  static List<Map<String, Object>> pools(Snapshot s) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (String name : s.config().pools().keySet()) {
      out.add(pool(s, name));
    }
    return out;
  }

  /**
   * Regions, the network map, and a few networks per region that only the GeoIP database knows
   * ({@code geoipSamples}, for {@code sluice ctl verify --all-nodes}).
   */
  static Map<String, Object> topology(Snapshot s, Map<String, List<Cidr>> geoIpSamples) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("defaultRegion", s.config().topology().defaultRegion());
    Map<String, Object> regions = new LinkedHashMap<>();
    s.config()
        .regions()
        .forEach(
            (name, r) -> {
              Map<String, Object> x = new LinkedHashMap<>();
              x.put("proximity", r.proximity());
              regions.put(name, x);
            });
    m.put("regions", regions);
    List<Map<String, Object>> networks = new ArrayList<>();
    s.config()
        .topology()
        .networks()
        .forEach(
            n -> {
              Map<String, Object> x = new LinkedHashMap<>();
              x.put("cidr", n.cidr());
              x.put("region", n.region());
              networks.add(x);
            });
    m.put("networks", networks);
    List<Map<String, Object>> samples = new ArrayList<>();
    geoIpSamples.forEach(
        (region, nets) ->
            nets.forEach(
                c -> {
                  Map<String, Object> x = new LinkedHashMap<>();
                  x.put("cidr", ClientSubnets.format(c.address(), c.prefix()));
                  x.put("region", region);
                  samples.add(x);
                }));
    m.put("geoipSamples", samples);
    return m;
  }

  /** JSON has no NaN: unknown measurements are null. */
  private static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
