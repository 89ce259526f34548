package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Restores the last stable plan of a service, or of every service; never asks. */
@Command(
    name = "rollback",
    mixinStandardHelpOptions = true,
    description =
        "Restore the last stable plan of SERVICE (or of every service with --all). Never asks.",
    footer = {"", "Example:", "  sluice ctl rollback app.example.com -r 'errors after switch'"})
final class RollbackCommand extends ApiCommand {
  @Parameters(arity = "0..1", paramLabel = "SERVICE", description = "The service to roll back.")
  String service;

  @Option(names = "--all", description = "Roll back every service.")
  boolean all;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    if ((service == null) == !all) {
      throw new CtlException(CtlMain.USAGE, "give either a SERVICE or --all");
    }
    String path = all ? "/api/v1/rollback" : svcPath(service) + "/rollback";
    return printResult(api().send("POST", path, body(change.reason, change.requestId)));
  }
}
