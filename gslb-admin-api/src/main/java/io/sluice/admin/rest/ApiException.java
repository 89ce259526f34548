package io.sluice.admin.rest;

import io.sluice.core.control.Problem;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A request the API refuses, answered with {@code status} and a JSON body naming the error code,
 * the offending field (or null), the reason and every problem found (one or more).
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int status;
  private final String error;
  private final transient List<Problem> problems;

  public ApiException(int status, String error, String field, String message) {
    this(status, error, List.of(new Problem(field, message)));
  }

  private ApiException(int status, String error, List<Problem> problems) {
    super(
        problems.size() == 1
            ? problems.get(0).message()
            : problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
    this.status = status;
    this.error = error;
    this.problems = List.copyOf(problems);
  }

  /** An error with every problem of the request (at least one). */
  public static ApiException of(int status, String error, List<Problem> problems) {
    return new ApiException(status, error, problems);
  }

  /** 400: a field is missing or has a bad value. */
  public static ApiException badRequest(String field, String message) {
    return new ApiException(400, "bad_request", field, message);
  }

  /** 400: every problem of the request (at least one), each naming its field. */
  public static ApiException badRequest(List<Problem> problems) {
    return new ApiException(400, "bad_request", problems);
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

  /** The field of the first problem, or null. */
  public String field() {
    return problems.get(0).field();
  }

  /** Every problem, in the order found. */
  public List<Problem> problems() {
    return problems;
  }
}
