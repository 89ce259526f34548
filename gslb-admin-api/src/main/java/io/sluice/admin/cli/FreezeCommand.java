package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** Stops automation (ramps, failover, failback) for one service or globally. */
@Command(
    name = "freeze",
    mixinStandardHelpOptions = true,
    description = "Freeze automation for SERVICE, or globally when no service is given.",
    footer = {"", "Example:", "  sluice ctl freeze -r 'incident 4711'"})
final class FreezeCommand extends ApiCommand {
  @Parameters(arity = "0..1", paramLabel = "SERVICE", description = "The service (default: all).")
  String service;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    String path = service == null ? "/api/v1/freeze" : svcPath(service) + "/freeze";
    return printResult(api().send("POST", path, body(change.reason, change.requestId)));
  }
}
