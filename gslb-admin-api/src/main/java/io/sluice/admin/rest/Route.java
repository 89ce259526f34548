package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;

/**
 * One API route: method, path template ({@code /api/v1/services/{service}}), the role it requires
 * (null: no authentication), its handler, and whether the handler checks a scoped token itself
 * ({@code checksScope}; otherwise {@link ScopeGuard} judges it by the path).
 */
public record Route(
    String method, String template, Role role, Handler handler, boolean checksScope) {

  /** Answers one request of a route. */
  @FunctionalInterface
  public interface Handler {
    ApiResponse handle(ApiRequest request) throws Exception;
  }
}
