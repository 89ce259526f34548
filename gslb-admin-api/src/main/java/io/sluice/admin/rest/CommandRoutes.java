package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.control.Problem;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The traffic-changing routes. Each reads its body and checks it with the same {@link CommandRules}
 * the traffic controller applies, collecting every problem (unknown, repeated, mistyped or missing
 * fields and the command's rules) into one 400; then it calls the {@link ControlPlane}, which
 * checks again against the current state, applies, persists and audits the change with the
 * authenticated actor.
 */
final class CommandRoutes {
  private static final String V1 = AdminServer.API_PREFIX;

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
    CommandProblems p = new CommandProblems();
    ChangeBody b = bodies.read(req.body(), ChangeBody.class, p);
    String service = StateViews.service(store.current(), req.pathParam("service"), "service");
    String id = checked(req, p, b.reason(), b.requestId());
    return result(cmd.apply(b, service, id));
  }

  private ApiResponse global(ApiRequest req, GlobalCommand cmd) throws Exception {
    CommandProblems p = new CommandProblems();
    ChangeBody b = bodies.read(req.body(), ChangeBody.class, p);
    String id = checked(req, p, b.reason(), b.requestId());
    return result(cmd.apply(b, id));
  }

  private ApiResponse weights(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    WeightsBody b = bodies.read(req.body(), WeightsBody.class, p);
    Snapshot s = store.current();
    String service = StateViews.service(s, req.pathParam("service"), "service");
    rule(p, r -> CommandRules.weights(r, service, poolsOf(s, service), b.weights()));
    String id = checked(req, p, b.reason(), b.requestId());
    return result(
        control.setWeights(
            req.actor(),
            service,
            new LinkedHashMap<>(b.weights()),
            Boolean.TRUE.equals(b.ramp()),
            reason(b.reason()),
            id));
  }

  private ApiResponse move(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    MoveBody b = bodies.read(req.body(), MoveBody.class, p);
    Snapshot s = store.current();
    String service = StateViews.service(s, req.pathParam("service"), "service");
    List<Integer> steps = b.steps() == null ? List.of() : b.steps();
    rule(
        p,
        r ->
            CommandRules.move(
                r,
                service,
                poolsOf(s, service),
                s.config().regions().keySet(),
                b.from(),
                b.to(),
                steps,
                b.region()));
    String id = checked(req, p, b.reason(), b.requestId());
    return result(
        control.startMove(
            req.actor(), service, b.from(), b.to(), steps, b.region(), reason(b.reason()), id));
  }

  private ApiResponse drill(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    DrillBody b = bodies.read(req.body(), DrillBody.class, p);
    Snapshot s = store.current();
    String service = StateViews.service(s, req.pathParam("service"), "service");
    rule(
        p,
        r -> CommandRules.drill(r, service, poolsOf(s, service), b.to(), b.percent(), b.seconds()));
    String id = checked(req, p, b.reason(), b.requestId());
    return result(
        control.startDrill(
            req.actor(), service, b.to(), b.percent(), b.seconds(), reason(b.reason()), id));
  }

  private ApiResponse drain(ApiRequest req, boolean drained) throws Exception {
    CommandProblems p = new CommandProblems();
    ChangeBody b = bodies.read(req.body(), ChangeBody.class, p);
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
    String id = checked(req, p, b.reason(), b.requestId());
    return result(control.drain(req.actor(), target, drained, reason(b.reason()), id));
  }

  private static Set<String> poolsOf(Snapshot s, String service) {
    return CommandRules.pools(StateViews.serviceConfig(s, service));
  }

  /**
   * Runs a command's rule from {@link CommandRules} and adds its problems about fields the body
   * reading has not already reported: a field that could not be read is reported once, not again as
   * missing.
   */
  static void rule(CommandProblems body, Consumer<CommandProblems> rule) {
    CommandProblems found = new CommandProblems();
    rule.accept(found);
    CommandProblems read = new CommandProblems().addAll(body.list());
    for (Problem r : found.list()) {
      if (r.field() == null || !read.mentions(r.field())) {
        body.add(r.field(), r.message());
      }
    }
  }

  /**
   * Adds the rules every command shares (reason, request id) to the body's and the command's
   * problems and rejects the request with all of them in one 400; otherwise the request id.
   */
  static String checked(ApiRequest req, CommandProblems p, String reason, String fromBody) {
    CommandRules.reason(p, reason);
    String id = requestId(req, fromBody, p);
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    return id;
  }

  private static String reason(String reason) {
    return reason == null ? "" : reason;
  }

  /** The request id from the {@code Idempotency-Key} header or the body; both must agree. */
  private static String requestId(ApiRequest req, String fromBody, CommandProblems p) {
    String header = req.idempotencyKey();
    if (header != null && fromBody != null && !header.equals(fromBody)) {
      p.add("requestId", "differs from the Idempotency-Key header ('" + header + "')");
      return null;
    }
    String id = header != null ? header : fromBody;
    CommandRules.requestId(p, id);
    return id;
  }

  static ApiResponse result(CommandResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("snapshotVersion", r.snapshotVersion());
    m.put("changed", r.changed());
    m.put("message", r.message());
    m.putAll(r.details());
    return ApiResponse.ok(m);
  }
}
