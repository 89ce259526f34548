package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.health.PoolLoad;
import io.sluice.core.health.PoolLoadFeed;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Load intake for the {@code capacity} step: {@code PUT /api/v1/pools/{pool}/load} (operator role)
 * records a pool's current load in the unit of its capacity, publishes it and audits it.
 */
final class LoadRoutes {
  private final SnapshotStore store;
  private final PoolLoadFeed feed;
  private final JsonBodies bodies;

  /** The body: the load (a number >= 0) and an optional reason for the audit log. */
  record LoadBody(Double load, String reason) {}

  LoadRoutes(SnapshotStore store, PoolLoadFeed feed, JsonBodies bodies) {
    this.store = store;
    this.feed = feed;
    this.bodies = bodies;
  }

  void register(Router r) {
    r.add("PUT", AdminServer.API_PREFIX + "/pools/{pool}/load", Role.OPERATOR, this::push);
  }

  private ApiResponse push(ApiRequest req) {
    CommandProblems p = new CommandProblems();
    LoadBody b = bodies.read(req.body(), LoadBody.class, p);
    String pool = StateViews.pool(store.current(), req.pathParam("pool"), "pool");
    CommandRoutes.rule(p, r -> CommandRules.load(r, b.load()));
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    PoolLoad l;
    try {
      l = feed.push(req.actor(), pool, b.load(), b.reason());
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(null, e.getMessage());
    }
    Snapshot s = store.current();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pool", pool);
    m.put("message", "load of " + pool + " is " + b.load() + (l.stale() ? " (stale)" : ""));
    m.put("load", StateViews.load(s, pool, l));
    m.put("snapshotVersion", s.version());
    return ApiResponse.ok(m);
  }
}
