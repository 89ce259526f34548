package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.health.PoolLoad;
import io.sluice.core.health.PoolLoadFeed;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
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
    LoadBody b = bodies.read(req.body(), LoadBody.class);
    String pool = StateViews.pool(store.current(), req.pathParam("pool"), "pool");
    if (b.load() == null) {
      throw ApiException.badRequest("load", "is required");
    }
    if (b.load().isNaN() || b.load().isInfinite() || b.load() < 0) {
      throw ApiException.badRequest("load", "must be a number >= 0, was " + b.load());
    }
    CommandRoutes.checkReason(b.reason());
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
