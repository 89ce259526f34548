package io.sluice.admin.cli;

/** Ends a command with a message for the operator and an exit code (see {@link CtlMain}). */
final class CtlException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  CtlException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
