package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** Stops new traffic to a pool or one endpoint. */
@Command(
    name = "drain",
    mixinStandardHelpOptions = true,
    description = "Send no new traffic to POOL or POOL/ENDPOINT. Asks unless --yes.",
    footer = {"", "Example:", "  sluice ctl drain eu-west-1/lon-b -r 'disk replacement' --yes"})
final class DrainCommand extends ApiCommand {
  @Parameters(paramLabel = "POOL[/ENDPOINT]", description = "A pool, or an endpoint in a pool.")
  String target;

  @Mixin ChangeOptions change;

  @Override
  public Integer call() {
    confirm(change.yes, "Drain " + target + ": it gets no new traffic until undrained.");
    return printResult(
        api().send("POST", drainPath(target, "drain"), body(change.reason, change.requestId)));
  }

  static String drainPath(String target, String action) {
    int slash = target.indexOf('/');
    if (slash == 0 || slash == target.length() - 1 || target.indexOf('/', slash + 1) >= 0) {
      throw new CtlException(CtlMain.USAGE, "expected POOL or POOL/ENDPOINT, was '" + target + "'");
    }
    return slash < 0
        ? "/api/v1/pools/" + ApiClient.encode(target) + "/" + action
        : "/api/v1/pools/"
            + ApiClient.encode(target.substring(0, slash))
            + "/endpoints/"
            + ApiClient.encode(target.substring(slash + 1))
            + "/"
            + action;
  }
}
