package io.sluice.admin.cli;

import picocli.CommandLine.Option;

/**
 * The options every change takes: a reason for the audit log, an idempotency key, and {@code
 * --yes}, which skips the question of a change that asks and is accepted (and ignored) by one that
 * never asks, so a runbook line or script that adds it everywhere works as typed.
 */
final class ChangeOptions {
  @Option(
      names = {"-y", "--yes"},
      description = "Do not ask for confirmation (changes that never ask accept it too).")
  boolean yes;

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
