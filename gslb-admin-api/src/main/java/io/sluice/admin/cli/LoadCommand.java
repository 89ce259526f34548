package io.sluice.admin.cli;

import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code load}: reports a pool's current load for the {@code capacity} step. */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description =
        "Report the current LOAD of POOL, in the unit of its capacity, for the capacity step."
            + " It is ignored once older than the pool's load.staleAfter (default 60s).",
    footer = {"", "Example:", "  sluice ctl load eu-west-1 850 -r 'lb connections'"})
final class LoadCommand extends ApiCommand {
  @Parameters(index = "0", paramLabel = "POOL", description = "The pool.")
  String pool;

  @Parameters(index = "1", paramLabel = "LOAD", description = "The load, a number >= 0.")
  double load;

  @Option(
      names = {"-r", "--reason"},
      paramLabel = "TEXT",
      description = "Why, for the audit log (default: 'via sluice ctl').")
  String reason;

  @Override
  public Integer call() {
    Map<String, Object> b = body(reason, null);
    b.put("load", load);
    return printResult(api().send("PUT", "/api/v1/pools/" + ApiClient.encode(pool) + "/load", b));
  }
}
