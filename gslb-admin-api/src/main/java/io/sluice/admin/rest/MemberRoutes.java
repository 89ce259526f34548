package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.ControlPlane;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.util.HashSet;
import java.util.Set;

/**
 * The dynamic membership routes: add or re-weight ({@code PUT}) and remove ({@code DELETE}) a
 * member of a pool, for autoscaling groups and deploy pipelines. A body is checked with the same
 * {@link CommandRules#member} rule the traffic controller applies, every problem in one 400.
 */
final class MemberRoutes {
  private static final String MEMBER = AdminServer.API_PREFIX + "/pools/{pool}/members/{name}";

  private final SnapshotStore store;
  private final ControlPlane control;
  private final JsonBodies bodies;

  record MemberBody(String address, Integer weight, String reason, String requestId) {}

  MemberRoutes(SnapshotStore store, ControlPlane control, JsonBodies bodies) {
    this.store = store;
    this.control = control;
    this.bodies = bodies;
  }

  void register(Router r) {
    r.add("PUT", MEMBER, Role.OPERATOR, this::set);
    r.add("DELETE", MEMBER, Role.OPERATOR, this::remove);
  }

  private ApiResponse set(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    MemberBody b = bodies.read(req.body(), MemberBody.class, p);
    String pool = StateViews.pool(store.current(), req.pathParam("pool"), "pool");
    String name = req.pathParam("name");
    Set<String> fileEndpoints = new HashSet<>();
    PoolConfig pc = store.current().config().pools().get(pool);
    pc.endpoints().stream().map(EndpointConfig::id).forEach(fileEndpoints::add);
    fileEndpoints.removeAll(control.dynamicMembers(pool));
    CommandRoutes.rule(
        p,
        r ->
            CommandRules.member(
                r, store.current().config(), pool, fileEndpoints, name, b.address(), b.weight()));
    String id = CommandRoutes.checked(req, p, b.reason(), b.requestId());
    return CommandRoutes.result(
        control.setMember(
            req.actor(),
            pool,
            name,
            b.address(),
            b.weight(),
            b.reason() == null ? "" : b.reason(),
            id));
  }

  private ApiResponse remove(ApiRequest req) throws Exception {
    CommandProblems p = new CommandProblems();
    CommandRoutes.ChangeBody b = bodies.read(req.body(), CommandRoutes.ChangeBody.class, p);
    String pool = StateViews.pool(store.current(), req.pathParam("pool"), "pool");
    String id = CommandRoutes.checked(req, p, b.reason(), b.requestId());
    return CommandRoutes.result(
        control.removeMember(
            req.actor(), pool, req.pathParam("name"), b.reason() == null ? "" : b.reason(), id));
  }
}
