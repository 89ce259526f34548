package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.config.ConfigException;
import io.sluice.core.control.ConfigReloader;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.state.SnapshotStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Health and readiness, {@code /metrics}, configuration reload and probe report intake. */
final class SystemRoutes {
  /** The Prometheus text exposition format. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final SnapshotStore store;
  private final ConfigReloader reloader;
  private final ProbeReport.Sink probeSink;
  private final PrometheusMetrics metrics;
  private final JsonBodies bodies;
  private final Supplier<Optional<String>> storeProblem;
  private final BooleanSupplier ready;

  SystemRoutes(
      SnapshotStore store,
      ConfigReloader reloader,
      ProbeReport.Sink probeSink,
      PrometheusMetrics metrics,
      JsonBodies bodies,
      BooleanSupplier ready,
      Supplier<Optional<String>> storeProblem) {
    this.storeProblem = storeProblem;
    this.store = store;
    this.reloader = reloader;
    this.probeSink = probeSink;
    this.metrics = metrics;
    this.bodies = bodies;
    this.ready = ready;
  }

  void register(Router r, boolean metricsPublic) {
    r.add("GET", "/healthz", null, req -> ApiResponse.ok(Map.of("status", "ok")));
    r.add("GET", "/readyz", null, req -> readiness());
    r.add(
        "GET",
        "/metrics",
        metricsPublic ? null : Role.VIEWER,
        req -> ApiResponse.bytes(metrics.scrapeBytes(), PROMETHEUS_TEXT));
    r.add("POST", AdminServer.API_PREFIX + "/config/reload", Role.ADMIN, this::reload);
    r.add("POST", AdminServer.API_PREFIX + "/probe-reports", Role.PROBE, this::probeReport);
  }

  private ApiResponse readiness() {
    Map<String, Object> m = StateViews.versions(store.current());
    boolean started = ready.getAsBoolean();
    Optional<String> problem = storeProblem.get();
    // A node whose state directory cannot be written must not take traffic commands.
    boolean ok = started && problem.isEmpty();
    m.put("status", !started ? "starting" : ok ? "ready" : "store-unhealthy");
    problem.ifPresent(p -> m.put("store", p));
    return ApiResponse.json(ok ? 200 : 503, m);
  }

  private ApiResponse reload(ApiRequest req) {
    bodies.read(req.body(), CommandRoutes.ChangeBody.class);
    try {
      // The reloader counts the result: it also serves SIGHUP, which never passes through here.
      var result = reloader.reload(req.actor());
      return CommandRoutes.result(result);
    } catch (ConfigException e) {
      return invalid(e, store);
    }
  }

  /** The 400 of a rejected configuration: every problem, and the snapshot still served. */
  static ApiResponse invalid(ConfigException e, SnapshotStore store) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("error", "invalid_config");
    m.put("message", "the new configuration is invalid; the running configuration is kept");
    m.put("problems", e.problems());
    m.put("snapshotVersion", store.current().version());
    return ApiResponse.json(400, m);
  }

  private ApiResponse probeReport(ApiRequest req) {
    ProbeReport report = bodies.read(req.body(), ProbeReport.class);
    if (report.vantage() == null || report.vantage().isBlank()) {
      throw ApiException.badRequest("vantage", "is required");
    }
    // A probe agent reports only as itself, so one leaked agent token cannot outvote the others.
    if (Role.of(req.actor().role()) == Role.PROBE && !report.vantage().equals(req.actor().name())) {
      throw new ApiException(
          403,
          "forbidden",
          "vantage",
          "a probe token may report only as its own vantage '" + req.actor().name() + "'");
    }
    for (int i = 0; i < report.results().size(); i++) {
      ProbeReport.Result r = report.results().get(i);
      if (r == null) {
        throw ApiException.badRequest("results[" + i + "]", "must be an object");
      }
      if (r.endpoint() == null || r.endpoint().isBlank()) {
        throw ApiException.badRequest("results[" + i + "].endpoint", "is required");
      }
      if (r.check() == null || r.check().isBlank()) {
        throw ApiException.badRequest("results[" + i + "].check", "is required");
      }
    }
    try {
      probeSink.accept(report);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(null, e.getMessage());
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("accepted", report.results().size());
    m.put("snapshotVersion", store.current().version());
    return ApiResponse.json(202, m);
  }
}
