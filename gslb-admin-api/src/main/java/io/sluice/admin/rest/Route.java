package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;

/**
 * One API route: method, path template ({@code /api/v1/services/{service}}), the role it requires
 * (null: no authentication) and its handler.
 */
public record Route(String method, String template, Role role, Handler handler) {

  /** Answers one request of a route. */
  @FunctionalInterface
  public interface Handler {
    ApiResponse handle(ApiRequest request) throws Exception;
  }
}
