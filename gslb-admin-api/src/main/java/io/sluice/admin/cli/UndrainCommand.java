package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** Lets a drained pool or endpoint receive traffic again. */
@Command(
    name = "undrain",
    mixinStandardHelpOptions = true,
    description = "Let POOL or POOL/ENDPOINT receive traffic again.",
    footer = {"", "Example:", "  sluice ctl undrain eu-west-1/lon-b"})
final class UndrainCommand extends ApiCommand {
  @Parameters(paramLabel = "POOL[/ENDPOINT]", description = "A pool, or an endpoint in a pool.")
  String target;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    return printResult(
        api()
            .send(
                "POST",
                DrainCommand.drainPath(target, "undrain"),
                body(change.reason, change.requestId)));
  }
}
