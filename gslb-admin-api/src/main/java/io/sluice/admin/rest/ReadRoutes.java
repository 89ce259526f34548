package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.Addresses;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.control.ServiceStatus;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The read-only routes: zones, services, pools, status, audit, switches, explain. */
final class ReadRoutes {
  private static final String V1 = AdminServer.API_PREFIX;
  private final SnapshotStore store;
  private final ControlPlane control;
  private final DecisionExplainer explainer;

  ReadRoutes(SnapshotStore store, ControlPlane control, DecisionExplainer explainer) {
    this.store = store;
    this.control = control;
    this.explainer = explainer;
  }

  void register(Router r) {
    r.add("GET", V1 + "/version", Role.VIEWER, req -> ApiResponse.ok(StateViews.versions(snap())));
    r.add(
        "GET", V1 + "/zones", Role.VIEWER, req -> withVersions("zones", StateViews.zones(snap())));
    r.add(
        "GET",
        V1 + "/services",
        Role.VIEWER,
        req -> withVersions("services", StateViews.services(snap())));
    r.add("GET", V1 + "/services/{service}", Role.VIEWER, this::service);
    r.add(
        "GET", V1 + "/pools", Role.VIEWER, req -> withVersions("pools", StateViews.pools(snap())));
    r.add("GET", V1 + "/pools/{pool}", Role.VIEWER, this::pool);
    r.add(
        "GET",
        V1 + "/topology",
        Role.VIEWER,
        req -> ApiResponse.ok(StateViews.topology(snap(), explainer.geoIpSamples())));
    r.add("GET", V1 + "/status", Role.VIEWER, req -> status());
    r.add("GET", V1 + "/pending", Role.VIEWER, req -> pending());
    r.add("GET", V1 + "/audit", Role.VIEWER, this::audit);
    r.add("GET", V1 + "/switches", Role.VIEWER, this::switches);
    r.add("GET", V1 + "/switches/{id}", Role.VIEWER, this::switchRecord);
    r.add("GET", V1 + "/explain", Role.VIEWER, this::explain);
  }

  private Snapshot snap() {
    return store.current();
  }

  private ApiResponse withVersions(String key, Object value) {
    return withVersions(key, value, null);
  }

  private ApiResponse withVersions(String key, Object value, Snapshot s) {
    Map<String, Object> m = StateViews.versions(s == null ? snap() : s);
    m.put(key, value);
    return ApiResponse.ok(m);
  }

  private ApiResponse service(ApiRequest req) {
    Snapshot s = snap();
    String fq = StateViews.service(s, req.pathParam("service"), "service");
    Map<String, Object> m = StateViews.service(s, fq);
    m.put("status", statusOf(fq));
    m.put("snapshotVersion", s.version());
    return ApiResponse.ok(m);
  }

  private ServiceStatus statusOf(String fq) {
    for (ServiceStatus st : control.status()) {
      if (st.service().equals(fq)) {
        return st;
      }
    }
    return null;
  }

  private ApiResponse pool(ApiRequest req) {
    Snapshot s = snap();
    String name = StateViews.pool(s, req.pathParam("pool"), "pool");
    Map<String, Object> m = StateViews.pool(s, name);
    m.put("snapshotVersion", s.version());
    return ApiResponse.ok(m);
  }

  private ApiResponse status() {
    Snapshot s = snap();
    Map<String, Object> m = StateViews.versions(s);
    m.put("frozen", s.traffic().frozen());
    m.put("services", control.status());
    m.put("pools", StateViews.pools(s));
    m.put("maintenance", control.maintenance());
    return ApiResponse.ok(m);
  }

  private ApiResponse pending() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ServiceStatus st : control.status()) {
      if (st.pending() != null && !st.pending().isEmpty()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("service", st.service());
        m.put("pending", st.pending());
        out.add(m);
      }
    }
    return withVersions("pending", out, null);
  }

  private ApiResponse audit(ApiRequest req) {
    String service = StateViews.serviceName(req.queryParam("service"));
    Long from = req.longParam("from", 0, Long.MAX_VALUE);
    Long to = req.longParam("to", 0, Long.MAX_VALUE);
    if (from != null && to != null && from > to) {
      throw ApiException.badRequest("from", "must not be after 'to'");
    }
    long offset = orDefault(req.longParam("offset", 0, Integer.MAX_VALUE), 0);
    long limit = orDefault(req.longParam("limit", 1, 1000), 100);
    AuditQuery q =
        new AuditQuery(service, req.queryParam("actor"), from, to, (int) offset, (int) limit);
    var events = control.audit(q);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("offset", q.offset());
    m.put("limit", q.limit());
    m.put("events", events);
    m.put("nextOffset", events.size() == q.limit() ? q.offset() + events.size() : null);
    return ApiResponse.ok(m);
  }

  private static long orDefault(Long v, long d) {
    return v == null ? d : v;
  }

  private ApiResponse switches(ApiRequest req) {
    String service = StateViews.serviceName(req.queryParam("service"));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("switches", control.switches(service));
    return ApiResponse.ok(m);
  }

  private ApiResponse switchRecord(ApiRequest req) {
    String id = req.pathParam("id");
    return control
        .switchRecord(id)
        .map(ApiResponse::ok)
        .orElseThrow(() -> ApiException.notFound("id", "no switch record '" + id + "'"));
  }

  private ApiResponse explain(ApiRequest req) {
    Snapshot s = snap();
    String fq = StateViews.service(s, req.requiredQueryParam("service"), "service");
    ClientInfo client = client(req.requiredQueryParam("client"));
    String type = req.queryParam("type");
    AddressFamily family;
    if (type == null || type.equalsIgnoreCase("A")) {
      family = AddressFamily.V4;
    } else if (type.equalsIgnoreCase("AAAA")) {
      family = AddressFamily.V6;
    } else {
      throw ApiException.badRequest("type", "must be A or AAAA, was '" + type + "'");
    }
    DecisionExplainer.Explanation e = explainer.explain(fq, family, client);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("service", e.service());
    m.put("client", e.client());
    m.put("type", family == AddressFamily.V4 ? "A" : "AAAA");
    m.put("region", e.region());
    m.put("regionSource", e.regionSource());
    m.put("steps", e.steps());
    m.put("decision", decision(e.decision()));
    m.put("snapshotVersion", s.version());
    return ApiResponse.ok(m);
  }

  /** Parses {@code 192.0.2.1}, {@code 10.1.0.0/16} or {@code 2001:db8::/48} into a client. */
  static ClientInfo client(String text) {
    int slash = text.indexOf('/');
    byte[] addr = Addresses.parse(slash < 0 ? text : text.substring(0, slash));
    if (addr == null) {
      throw ApiException.badRequest(
          "client", "must be an IP address or a CIDR subnet, was '" + text + "'");
    }
    if (slash < 0) {
      return ClientInfo.ofResolver(addr);
    }
    int prefix;
    try {
      prefix = Integer.parseInt(text.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("client", "has an invalid prefix length: '" + text + "'");
    }
    if (prefix < 0 || prefix > addr.length * 8) {
      throw ApiException.badRequest(
          "client", "prefix length must be 0.." + addr.length * 8 + ", was " + prefix);
    }
    return ClientInfo.ofSubnet(addr, prefix);
  }

  static Map<String, Object> decision(Decision d) {
    if (d == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("outcome", d.outcome().name().toLowerCase(Locale.ROOT));
    List<String> addrs = new ArrayList<>();
    for (byte[] a : d.addresses()) {
      try {
        addrs.add(InetAddress.getByAddress(a).getHostAddress());
      } catch (UnknownHostException e) {
        addrs.add("invalid:" + a.length + "-byte address");
      }
    }
    m.put("addresses", addrs);
    m.put("cname", d.cname());
    m.put("ttl", d.ttl());
    m.put("scopePrefix", d.scopePrefix());
    m.put("pools", d.pools());
    return m;
  }
}
