package io.sluice.admin.cli;

import picocli.CommandLine.Option;

/** The options every change takes: a reason for the audit log and an idempotency key. */
final class ChangeOptions {
  @Option(
      names = {"-r", "--reason"},
      paramLabel = "TEXT",
      description = "Why, for the audit log (default: 'via sluice ctl').")
  String reason;

  @Option(
      names = "--request-id",
      paramLabel = "ID",
      description = "Idempotency key: retrying with the same id does not apply the change twice.")
  String requestId;
}
