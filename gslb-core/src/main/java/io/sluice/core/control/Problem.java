package io.sluice.core.control;

/** One thing wrong with a command: the request field it concerns (or null) and what is wrong. */
public record Problem(String field, String message) {

  /** {@code field: message}, or the message alone when no field is named. */
  @Override
  public String toString() {
    return field == null ? message : field + ": " + message;
  }
}
