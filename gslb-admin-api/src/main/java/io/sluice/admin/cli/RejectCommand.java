package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** Refuses the pending step of a service; traffic stays where it is. */
@Command(
    name = "reject",
    mixinStandardHelpOptions = true,
    description = "Reject the pending step of SERVICE; traffic stays where it is.",
    footer = {"", "Example:", "  sluice ctl reject app.example.com -r 'target still flapping'"})
final class RejectCommand extends ApiCommand {
  @Parameters(paramLabel = "SERVICE", description = "The service with a pending step.")
  String service;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    return printResult(
        api().send("POST", svcPath(service) + "/reject", body(change.reason, change.requestId)));
  }
}
