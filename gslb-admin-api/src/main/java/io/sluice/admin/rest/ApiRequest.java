package io.sluice.admin.rest;

import io.sluice.core.control.Actor;
import java.util.List;
import java.util.Map;

/**
 * One authenticated API request as the route handlers see it: path parameters from the route
 * template, query parameters, the {@code Idempotency-Key} header, the body and who sent it.
 */
public record ApiRequest(
    String method,
    String path,
    Map<String, String> pathParams,
    Map<String, List<String>> query,
    String idempotencyKey,
    byte[] body,
    Actor actor,
    String source) {

  /** A path parameter of the matched route. */
  public String pathParam(String name) {
    return pathParams.get(name);
  }

  /** The single value of a query parameter, or null; a repeated parameter is a 400. */
  public String queryParam(String name) {
    List<String> values = query.get(name);
    if (values == null || values.isEmpty()) {
      return null;
    }
    if (values.size() > 1) {
      throw ApiException.badRequest(
          name, "must be given once, was given " + values.size() + " times");
    }
    return values.get(0);
  }

  /** A required query parameter. */
  public String requiredQueryParam(String name) {
    String v = queryParam(name);
    if (v == null || v.isBlank()) {
      throw ApiException.badRequest(name, "is required");
    }
    return v;
  }

  /** An optional whole-number query parameter within {@code min..max}. */
  public Long longParam(String name, long min, long max) {
    String v = queryParam(name);
    if (v == null) {
      return null;
    }
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(name, "must be a whole number, was '" + v + "'");
    }
    if (n < min || n > max) {
      throw ApiException.badRequest(name, "must be " + min + ".." + max + ", was " + n);
    }
    return n;
  }
}
