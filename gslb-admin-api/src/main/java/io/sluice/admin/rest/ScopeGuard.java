package io.sluice.admin.rest;

import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.TokenScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Keeps a scoped token's changes inside its scope (docs/auth.md, "Scoped tokens"). Reads are not
 * limited. A change route naming a {@code {service}} must name one of the scope's services; one
 * naming a {@code {pool}} must name one of its pools or a pool used only by its services; a route
 * whose handler checks the body itself ({@link Route#checksScope()}) is left to it; every other
 * change acts on every service and is refused. Refusals are 403 {@code out_of_scope} naming the
 * scope.
 */
final class ScopeGuard {
  private final Supplier<SluiceConfig> config;

  ScopeGuard(Supplier<SluiceConfig> config) {
    this.config = config;
  }

  /** Throws 403 when the scoped {@code actor} may not run {@code route} with {@code params}. */
  void check(Route route, Map<String, String> params, Actor actor) {
    TokenScope scope = actor.scope();
    if (scope == null || route.method().equals("GET") || route.checksScope()) {
      return;
    }
    String service = params.get("service");
    if (service != null) {
      service(actor, StateViews.serviceName(service));
      return;
    }
    String pool = params.get("pool");
    if (pool != null) {
      pool(actor, pool);
      return;
    }
    throw refused(actor, route.method() + " " + route.template() + " acts on every service");
  }

  /** Throws 403 unless the scope of {@code actor} (if any) holds {@code service}. */
  void service(Actor actor, String service) {
    if (actor.scope() != null && !actor.scope().permitsService(service)) {
      throw refused(actor, "service '" + service + "' is outside it");
    }
  }

  /** Throws 403 unless the scope of {@code actor} (if any) holds {@code pool}. */
  void pool(Actor actor, String pool) {
    if (actor.scope() != null && !actor.scope().permitsPool(pool, usedBy(config.get(), pool))) {
      throw refused(
          actor, "pool '" + pool + "' is outside it (used by " + usedBy(config.get(), pool) + ")");
    }
  }

  /** The services whose pools include {@code pool}. */
  static List<String> usedBy(SluiceConfig config, String pool) {
    List<String> out = new ArrayList<>();
    for (ZoneConfig z : config.zones()) {
      for (ServiceConfig s : z.services()) {
        if (s.pools().stream().anyMatch(sp -> sp.pool().equals(pool))) {
          out.add(s.fqdn(z.origin()));
        }
      }
    }
    return out;
  }

  private static ApiException refused(Actor actor, String why) {
    return new ApiException(
        403,
        "out_of_scope",
        null,
        "token '" + actor.name() + "' is limited to " + actor.scope().describe() + "; " + why);
  }
}
