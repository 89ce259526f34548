package io.sluice.core.control;

/**
 * A command that was refused and changed nothing. {@code field} names the offending request field
 * (or null), {@code conflict} is true when the request was valid but the current state forbids it.
 */
public final class CommandRejectedException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String field;
  private final boolean conflict;

  public CommandRejectedException(String field, String message, boolean conflict) {
    super(field == null ? message : field + ": " + message);
    this.field = field;
    this.conflict = conflict;
  }

  /** A request with an invalid field. */
  public static CommandRejectedException invalid(String field, String message) {
    return new CommandRejectedException(field, message, false);
  }

  /** A valid request the current state does not allow. */
  public static CommandRejectedException conflict(String message) {
    return new CommandRejectedException(null, message, true);
  }

  public String field() {
    return field;
  }

  public boolean conflict() {
    return conflict;
  }
}
