package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.DurationParser;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.control.MaintenanceKind;
import io.sluice.core.control.MaintenanceRequest;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;

/**
 * The maintenance window routes: list, schedule, cancel. A schedule request is read into a {@link
 * MaintenanceRequest} (its start an ISO-8601 instant, its duration as the configuration writes
 * them) and checked with the same {@link CommandRules#maintenance} rule the traffic controller
 * applies, every problem in one 400.
 */
final class MaintenanceRoutes {
  private static final String V1 = AdminServer.API_PREFIX;

  private final SnapshotStore store;
  private final ControlPlane control;
  private final JsonBodies bodies;
  private final Ticker ticker;
  private final ScopeGuard scopes;

  record AddBody(
      String kind,
      String target,
      List<String> from,
      List<String> to,
      String start,
      String duration,
      String reason,
      String requestId) {}

  MaintenanceRoutes(SnapshotStore store, ControlPlane control, JsonBodies bodies, Ticker ticker) {
    this.store = store;
    this.control = control;
    this.bodies = bodies;
    this.ticker = ticker;
    this.scopes = new ScopeGuard(() -> store.current().config());
  }

  void register(Router r) {
    r.add("GET", V1 + "/maintenance", Role.VIEWER, req -> list());
    // A scoped token may schedule and cancel windows of its own pools and services only.
    r.addCheckingScope("POST", V1 + "/maintenance", Role.OPERATOR, this::add);
    r.addCheckingScope("POST", V1 + "/maintenance/{id}/cancel", Role.OPERATOR, this::cancel);
  }

  private ApiResponse list() {
    Map<String, Object> m = StateViews.versions(store.current());
    m.put("windows", control.maintenance());
    return ApiResponse.ok(m);
  }

  private ApiResponse add(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    AddBody b = bodies.read(req.body(), AddBody.class, p);
    MaintenanceKind kind = CommandRules.maintenanceKind(p, b.kind());
    Long start = null;
    if (b.start() != null) {
      try {
        start = Instant.parse(b.start()).toEpochMilli();
      } catch (DateTimeParseException e) {
        p.add(
            "start",
            "must be an ISO-8601 UTC time such as 2026-12-01T02:00:00Z, was '" + b.start() + "'");
      }
    }
    Long seconds = null;
    if (b.duration() != null) {
      try {
        seconds = DurationParser.parse(b.duration()).toSeconds();
      } catch (IllegalArgumentException e) {
        p.add("duration", e.getMessage());
      }
    }
    String target =
        kind == MaintenanceKind.MOVE && b.target() != null
            ? StateViews.serviceName(b.target())
            : b.target();
    MaintenanceRequest w = new MaintenanceRequest(kind, target, b.from(), b.to(), start, seconds);
    CommandRoutes.rule(
        p,
        r -> CommandRules.maintenance(r, store.current().config(), w, ticker.currentTimeMillis()));
    String id = CommandRoutes.checked(req, p, b.reason(), b.requestId());
    if (kind == MaintenanceKind.MOVE) {
      scopes.service(req.actor(), target);
    } else {
      scopes.pool(
          req.actor(), target.contains("/") ? target.substring(0, target.indexOf('/')) : target);
    }
    return CommandRoutes.result(
        control.addMaintenance(req.actor(), w, b.reason() == null ? "" : b.reason(), id));
  }

  private ApiResponse cancel(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    CommandRoutes.ChangeBody b = bodies.read(req.body(), CommandRoutes.ChangeBody.class, p);
    String id = CommandRoutes.checked(req, p, b.reason(), b.requestId());
    for (Map<String, Object> w : control.maintenance()) {
      if (w.get("id").equals(req.pathParam("id"))) {
        inScope(req, MaintenanceKind.of((String) w.get("kind")), (String) w.get("target"));
      }
    }
    return CommandRoutes.result(
        control.cancelMaintenance(
            req.actor(), req.pathParam("id"), b.reason() == null ? "" : b.reason(), id));
  }

  /** Throws 403 when a scoped token may not touch a window of {@code kind} on {@code target}. */
  private void inScope(ApiRequest req, MaintenanceKind kind, String target) {
    if (kind == MaintenanceKind.MOVE) {
      scopes.service(req.actor(), target);
    } else {
      int slash = target.indexOf('/');
      scopes.pool(req.actor(), slash < 0 ? target : target.substring(0, slash));
    }
  }
}
