package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches request paths against route templates. Literal segments win over parameters, so {@code
 * /switches/{id}} never captures a literal sibling route.
 */
public final class Router {
  private final List<Route> routes = new ArrayList<>();

  /** A matched route with its path parameters; {@code route} null means no method matched. */
  public record Match(Route route, Map<String, String> params, List<String> allowedMethods) {}

  /** Adds a route. */
  public Router add(String method, String template, Role role, Route.Handler handler) {
    return add(new Route(method, template, role, handler, false));
  }

  /**
   * Adds a change route whose handler checks a scoped token itself, against the request body (a
   * maintenance window's target); see {@link ScopeGuard}.
   */
  public Router addCheckingScope(String method, String template, Role role, Route.Handler handler) {
    return add(new Route(method, template, role, handler, true));
  }

  private Router add(Route route) {
    String method = route.method();
    String template = route.template();
    for (Route r : routes) {
      if (r.method().equals(method) && r.template().equals(template)) {
        throw new IllegalArgumentException("duplicate route " + method + " " + template);
      }
    }
    routes.add(route);
    return this;
  }

  /** Every route, in registration order. */
  public List<Route> routes() {
    return List.copyOf(routes);
  }

  /** The route for {@code method} and {@code path}, or null when no template matches the path. */
  public Match match(String method, String path) {
    String[] segments = split(path);
    Route best = null;
    Map<String, String> bestParams = null;
    int bestLiterals = -1;
    List<String> allowed = new ArrayList<>();
    for (Route r : routes) {
      String[] t = split(r.template());
      if (t.length != segments.length) {
        continue;
      }
      Map<String, String> params = new HashMap<>();
      int literals = 0;
      boolean ok = true;
      for (int i = 0; i < t.length && ok; i++) {
        if (t[i].startsWith("{")) {
          params.put(t[i].substring(1, t[i].length() - 1), decode(segments[i]));
        } else if (t[i].equals(segments[i])) {
          literals++;
        } else {
          ok = false;
        }
      }
      if (!ok) {
        continue;
      }
      if (!allowed.contains(r.method())) {
        allowed.add(r.method());
      }
      if (r.method().equals(method) && literals > bestLiterals) {
        best = r;
        bestParams = params;
        bestLiterals = literals;
      }
    }
    if (allowed.isEmpty()) {
      return null;
    }
    return new Match(best, bestParams == null ? Map.of() : Map.copyOf(bestParams), allowed);
  }

  private static String[] split(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    if (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p.isEmpty() ? new String[0] : p.split("/", -1);
  }

  private static String decode(String segment) {
    try {
      return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest(null, "malformed percent-encoding in path: " + segment);
    }
  }
}
