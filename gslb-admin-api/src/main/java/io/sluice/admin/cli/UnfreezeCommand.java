package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** Lets automation act again; asks first because it may move traffic at once. */
@Command(
    name = "unfreeze",
    mixinStandardHelpOptions = true,
    description = "Unfreeze automation for SERVICE, or globally. Asks unless --yes.",
    footer = {"", "Example:", "  sluice ctl unfreeze app.example.com --yes"})
final class UnfreezeCommand extends ApiCommand {
  @Parameters(arity = "0..1", paramLabel = "SERVICE", description = "The service (default: all).")
  String service;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    confirm(
        change.yes,
        "Unfreeze automation "
            + (service == null ? "globally" : "for " + service)
            + ": pending ramps and failovers may move traffic at once.");
    String path = service == null ? "/api/v1/unfreeze" : svcPath(service) + "/unfreeze";
    return printResult(api().send("POST", path, body(change.reason, change.requestId)));
  }
}
