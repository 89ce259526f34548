package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The traffic-changing routes. Each validates its body with the same {@link CommandRules} the
 * traffic controller applies (400 naming the field), then calls the {@link ControlPlane}, which
 * checks again against the current state, applies, persists and audits the change with the
 * authenticated actor.
 */
final class CommandRoutes {
  private static final String V1 = AdminServer.API_PREFIX;
  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final int MAX_REASON = 1000;

  private final SnapshotStore store;
  private final ControlPlane control;
  private final JsonBodies bodies;

  /** The body of commands that take only a reason and a request id. */
  record ChangeBody(String reason, String requestId) {}

  record WeightsBody(Map<String, Integer> weights, Boolean ramp, String reason, String requestId) {}

  record MoveBody(
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String region,
      String reason,
      String requestId) {}

  record DrillBody(
      List<String> to, Double percent, Long seconds, String reason, String requestId) {}

  CommandRoutes(SnapshotStore store, ControlPlane control, JsonBodies bodies) {
    this.store = store;
    this.control = control;
    this.bodies = bodies;
  }

  void register(Router r) {
    String svc = V1 + "/services/{service}";
    r.add("PUT", svc + "/weights", Role.OPERATOR, this::weights);
    r.add("POST", svc + "/move", Role.OPERATOR, this::move);
    r.add(
        "POST",
        svc + "/move/abort",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.abortMove(req.actor(), s, b.reason(), id)));
    r.add(
        "POST",
        svc + "/rollback",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.rollback(req.actor(), s, b.reason(), id)));
    r.add(
        "POST",
        V1 + "/rollback",
        Role.OPERATOR,
        req -> global(req, (b, id) -> control.rollback(req.actor(), null, b.reason(), id)));
    r.add(
        "POST",
        V1 + "/freeze",
        Role.OPERATOR,
        req -> global(req, (b, id) -> control.freeze(req.actor(), null, true, b.reason(), id)));
    r.add(
        "POST",
        V1 + "/unfreeze",
        Role.OPERATOR,
        req -> global(req, (b, id) -> control.freeze(req.actor(), null, false, b.reason(), id)));
    r.add(
        "POST",
        svc + "/freeze",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.freeze(req.actor(), s, true, b.reason(), id)));
    r.add(
        "POST",
        svc + "/unfreeze",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.freeze(req.actor(), s, false, b.reason(), id)));
    r.add(
        "POST",
        svc + "/confirm",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.confirm(req.actor(), s, true, b.reason(), id)));
    r.add(
        "POST",
        svc + "/reject",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.confirm(req.actor(), s, false, b.reason(), id)));
    r.add("POST", svc + "/drill", Role.OPERATOR, this::drill);
    r.add(
        "POST",
        svc + "/drill/stop",
        Role.OPERATOR,
        req -> simple(req, (b, s, id) -> control.stopDrill(req.actor(), s, b.reason(), id)));
    r.add("POST", V1 + "/pools/{pool}/drain", Role.OPERATOR, req -> drain(req, true));
    r.add("POST", V1 + "/pools/{pool}/undrain", Role.OPERATOR, req -> drain(req, false));
    r.add(
        "POST",
        V1 + "/pools/{pool}/endpoints/{endpoint}/drain",
        Role.OPERATOR,
        req -> drain(req, true));
    r.add(
        "POST",
        V1 + "/pools/{pool}/endpoints/{endpoint}/undrain",
        Role.OPERATOR,
        req -> drain(req, false));
  }

  @FunctionalInterface
  private interface ServiceCommand {
    CommandResult apply(ChangeBody body, String service, String requestId) throws Exception;
  }

  @FunctionalInterface
  private interface GlobalCommand {
    CommandResult apply(ChangeBody body, String requestId) throws Exception;
  }

  private ApiResponse simple(ApiRequest req, ServiceCommand cmd) throws Exception {
    ChangeBody b = normalized(bodies.read(req.body(), ChangeBody.class));
    String service = StateViews.service(store.current(), req.pathParam("service"), "service");
    return result(cmd.apply(b, service, requestId(req, b.requestId())));
  }

  private ApiResponse global(ApiRequest req, GlobalCommand cmd) throws Exception {
    ChangeBody b = normalized(bodies.read(req.body(), ChangeBody.class));
    return result(cmd.apply(b, requestId(req, b.requestId())));
  }

  private ApiResponse weights(ApiRequest req) throws Exception {
    WeightsBody b = bodies.read(req.body(), WeightsBody.class);
    Snapshot s = store.current();
    String service = StateViews.service(s, req.pathParam("service"), "service");
    Set<String> pools = poolsOf(s, service);
    rule(() -> CommandRules.weights(service, pools, b.weights()));
    checkReason(b.reason());
    return result(
        control.setWeights(
            req.actor(),
            service,
            new LinkedHashMap<>(b.weights()),
            Boolean.TRUE.equals(b.ramp()),
            reason(b.reason()),
            requestId(req, b.requestId())));
  }

  private ApiResponse move(ApiRequest req) throws Exception {
    MoveBody b = bodies.read(req.body(), MoveBody.class);
    Snapshot s = store.current();
    String service = StateViews.service(s, req.pathParam("service"), "service");
    Set<String> pools = poolsOf(s, service);
    List<Integer> steps = b.steps() == null ? List.of() : b.steps();
    rule(
        () ->
            CommandRules.move(
                service,
                pools,
                s.config().regions().keySet(),
                b.from(),
                b.to(),
                steps,
                b.region()));
    checkReason(b.reason());
    return result(
        control.startMove(
            req.actor(),
            service,
            b.from(),
            b.to(),
            steps,
            b.region(),
            reason(b.reason()),
            requestId(req, b.requestId())));
  }

  private ApiResponse drill(ApiRequest req) throws Exception {
    DrillBody b = bodies.read(req.body(), DrillBody.class);
    Snapshot s = store.current();
    String service = StateViews.service(s, req.pathParam("service"), "service");
    rule(() -> CommandRules.drill(service, poolsOf(s, service), b.to(), b.percent(), b.seconds()));
    checkReason(b.reason());
    return result(
        control.startDrill(
            req.actor(),
            service,
            b.to(),
            b.percent(),
            b.seconds(),
            reason(b.reason()),
            requestId(req, b.requestId())));
  }

  private ApiResponse drain(ApiRequest req, boolean drained) throws Exception {
    ChangeBody b = bodies.read(req.body(), ChangeBody.class);
    Snapshot s = store.current();
    String pool = StateViews.pool(s, req.pathParam("pool"), "pool");
    String target = pool;
    String endpoint = req.pathParam("endpoint");
    if (endpoint != null) {
      PoolConfig pc = s.config().pools().get(pool);
      if (pc.endpoints().stream().map(EndpointConfig::id).noneMatch(endpoint::equals)) {
        throw ApiException.notFound(
            "endpoint", "pool '" + pool + "' has no endpoint '" + endpoint + "'");
      }
      target = pool + "/" + endpoint;
    }
    checkReason(b.reason());
    return result(
        control.drain(
            req.actor(), target, drained, reason(b.reason()), requestId(req, b.requestId())));
  }

  private static ChangeBody normalized(ChangeBody b) {
    checkReason(b.reason());
    return new ChangeBody(reason(b.reason()), b.requestId());
  }

  private static Set<String> poolsOf(Snapshot s, String service) {
    return CommandRules.pools(StateViews.serviceConfig(s, service));
  }

  /** A check of the command's arguments, shared with the traffic controller. */
  @FunctionalInterface
  private interface Rule {
    void check() throws CommandRejectedException;
  }

  /** Runs the controller's own rule for the command; its rejection is a 400 naming the field. */
  private static void rule(Rule r) {
    try {
      r.check();
    } catch (CommandRejectedException e) {
      String message =
          e.field() == null ? e.getMessage() : e.getMessage().substring(e.field().length() + 2);
      throw ApiException.badRequest(e.field(), message);
    }
  }

  private static void checkReason(String reason) {
    if (reason != null && reason.length() > MAX_REASON) {
      throw ApiException.badRequest("reason", "must be at most " + MAX_REASON + " characters");
    }
  }

  private static String reason(String reason) {
    return reason == null ? "" : reason;
  }

  /** The request id from the {@code Idempotency-Key} header or the body; both must agree. */
  static String requestId(ApiRequest req, String fromBody) {
    String header = req.idempotencyKey();
    if (header != null && fromBody != null && !header.equals(fromBody)) {
      throw ApiException.badRequest(
          "requestId", "differs from the Idempotency-Key header ('" + header + "')");
    }
    String id = header != null ? header : fromBody;
    if (id != null && !REQUEST_ID.matcher(id).matches()) {
      throw ApiException.badRequest(
          "requestId", "must be 1..128 characters of letters, digits and . _ : -");
    }
    return id;
  }

  static ApiResponse result(CommandResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("snapshotVersion", r.snapshotVersion());
    m.put("changed", r.changed());
    m.put("message", r.message());
    return ApiResponse.ok(m);
  }
}
