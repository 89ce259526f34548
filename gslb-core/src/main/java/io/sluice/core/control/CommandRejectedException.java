package io.sluice.core.control;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A command that was refused and changed nothing. An invalid request carries every {@link Problem}
 * found in it, each naming its request field; {@code conflict} is true when the request was valid
 * but the current state forbids it.
 */
public final class CommandRejectedException extends Exception {
  private static final long serialVersionUID = 1L;
  private final transient List<Problem> problems;
  private final boolean conflict;

  private CommandRejectedException(List<Problem> problems, boolean conflict) {
    super(problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
    this.problems = List.copyOf(problems);
    this.conflict = conflict;
  }

  /** A request with one invalid field. */
  public static CommandRejectedException invalid(String field, String message) {
    return invalid(List.of(new Problem(field, message)));
  }

  /** A request with these problems (at least one). */
  public static CommandRejectedException invalid(List<Problem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("a rejection needs at least one problem");
    }
    return new CommandRejectedException(problems, false);
  }

  /** A valid request the current state does not allow. */
  public static CommandRejectedException conflict(String message) {
    return new CommandRejectedException(List.of(new Problem(null, message)), true);
  }

  /** The field of the first problem, or null. */
  public String field() {
    return problems.get(0).field();
  }

  /** Every problem of the request, in the order found. */
  public List<Problem> problems() {
    return problems;
  }

  public boolean conflict() {
    return conflict;
  }
}
