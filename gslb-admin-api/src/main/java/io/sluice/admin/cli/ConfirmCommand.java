package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** Lets the pending step of a service go ahead. */
@Command(
    name = "confirm",
    mixinStandardHelpOptions = true,
    description = "Confirm the pending step of SERVICE (it then moves traffic). Asks unless --yes.",
    footer = {"", "Example:", "  sluice ctl confirm app.example.com --yes"})
final class ConfirmCommand extends ApiCommand {
  @Parameters(paramLabel = "SERVICE", description = "The service with a pending step.")
  String service;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    confirm(change.yes, "Confirm the pending step of " + service + ": traffic will move.");
    return printResult(
        api().send("POST", svcPath(service) + "/confirm", body(change.reason, change.requestId)));
  }
}
