package io.sluice.admin.rest;

/**
 * A request the API refuses, answered with {@code status} and a JSON body naming the error code,
 * the offending field (or null) and the reason.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final String error;
  private final String field;

  public ApiException(int status, String error, String field, String message) {
    super(message);
    this.status = status;
    this.error = error;
    this.field = field;
  }

  /** 400: a field is missing or has a bad value. */
  public static ApiException badRequest(String field, String message) {
    return new ApiException(400, "bad_request", field, message);
  }

  /** 404: the named thing does not exist. */
  public static ApiException notFound(String field, String message) {
    return new ApiException(404, "not_found", field, message);
  }

  public int status() {
    return status;
  }

  public String error() {
    return error;
  }

  public String field() {
    return field;
  }
}
