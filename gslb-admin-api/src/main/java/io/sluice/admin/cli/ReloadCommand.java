package io.sluice.admin.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Reloads the server's configuration file; an invalid one is refused with every problem. */
@Command(
    name = "reload",
    mixinStandardHelpOptions = true,
    description = "Reload the configuration file on the server (admin role). Asks unless --yes.",
    footer = {"", "Example:", "  sluice ctl reload --yes"})
final class ReloadCommand extends ApiCommand {
  @Option(
      names = {"-y", "--yes"},
      description = "Do not ask for confirmation.")
  boolean yes;

  @Override
  public Integer call() {
    confirm(yes, "Reload the configuration; an invalid file is refused and the running one kept.");
    return printResult(
        api()
            .send(
                "POST",
                "/api/v1/config/reload",
                body(null, null),
                ApiClient.RELOAD_TIMEOUT_MILLIS));
  }
}
