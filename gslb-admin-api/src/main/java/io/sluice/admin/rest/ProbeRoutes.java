package io.sluice.admin.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.admin.auth.Role;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.ProbeEvidence;
import io.sluice.core.spi.ProbeView;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /api/v1/probes} (viewer role): the probe status docs/health.md describes — vantages
 * with freshness and probe-path health, endpoints held by flap damping, pools without checks, the
 * initial round and schedule lag — and, per checked endpoint, its verdict, the vantages behind it
 * and the time of its last result.
 */
final class ProbeRoutes {
  private final SnapshotStore store;
  private final Supplier<ProbeView> probes;
  private final ObjectMapper json;
  private final Ticker ticker;

  ProbeRoutes(SnapshotStore store, Supplier<ProbeView> probes, ObjectMapper json, Ticker ticker) {
    this.store = store;
    this.probes = probes;
    this.json = json;
    this.ticker = ticker;
  }

  void register(Router r) {
    r.add("GET", AdminServer.API_PREFIX + "/probes", Role.VIEWER, req -> ApiResponse.ok(view()));
  }

  private Map<String, Object> view() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nowMillis", ticker.currentTimeMillis());
    ProbeView p = probes.get();
    if (p == null) {
      m.put("running", false);
      m.put("message", "no probe engine runs in this process");
      return m;
    }
    m.put("running", true);
    @SuppressWarnings("unchecked")
    Map<String, Object> status = json.convertValue(p.status(), Map.class);
    m.putAll(status);
    List<String> impaired = new ArrayList<>();
    for (Object v : (List<?>) status.getOrDefault("vantages", List.of())) {
      if (v instanceof Map<?, ?> vantage && Boolean.FALSE.equals(vantage.get("pathOk"))) {
        impaired.add(String.valueOf(vantage.get("name")));
      }
    }
    m.put("pathImpaired", impaired);
    m.put("checked", checked(store.current(), p.evidence()));
    return m;
  }

  /** Every checked endpoint in configuration order: verdict, evidence, last result. */
  private static List<Map<String, Object>> checked(Snapshot s, Map<String, ProbeEvidence> ev) {
    List<Map<String, Object>> out = new ArrayList<>();
    s.config()
        .pools()
        .forEach(
            (pool, cfg) -> {
              for (var e : cfg.endpoints()) {
                String key = PoolConfig.endpointKey(pool, e);
                ProbeEvidence x = ev.get(key);
                if (x == null) {
                  continue;
                }
                EndpointHealth h = s.health().get(key);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("endpoint", key);
                row.put("pool", pool);
                row.put("verdict", h.verdict().name().toLowerCase(Locale.ROOT));
                row.put("stale", h.stale());
                row.put("vantagesEligible", x.vantagesEligible());
                row.put("vantagesAgreeing", x.vantagesAgreeing());
                row.put("lastResultMillis", x.lastResultMillis());
                out.add(row);
              }
            });
    return out;
  }
}
