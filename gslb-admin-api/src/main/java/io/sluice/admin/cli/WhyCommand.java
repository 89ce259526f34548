package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The policy chain's decision for one client on the state the node served at an earlier time. */
@Command(
    name = "why",
    mixinStandardHelpOptions = true,
    description =
        "Show how the policy chain answered SERVICE for CLIENT at TIME: the chain re-run on the"
            + " state in force then (configuration, traffic plan, health), from the node's history.",
    footer = {
      "",
      "Example:",
      "  sluice ctl why 10.1.2.0/24 app.example.com --at 2026-05-04T14:02:00Z"
    })
final class WhyCommand extends ApiCommand {
  @Parameters(index = "0", paramLabel = "CLIENT", description = "Client address or subnet (ECS).")
  String client;

  @Parameters(index = "1", paramLabel = "SERVICE", description = "The service.")
  String service;

  @Option(
      names = "--at",
      required = true,
      paramLabel = "TIME",
      description = "RFC 3339 time (2026-05-04T14:02:00Z) or epoch milliseconds.")
  String at;

  @Option(
      names = "--type",
      defaultValue = "A",
      paramLabel = "A|AAAA",
      description = "Record type (default ${DEFAULT-VALUE}).")
  String type;

  @Override
  public Integer call() {
    JsonNode e =
        api()
            .get(
                "/api/v1/why?service="
                    + ApiClient.encode(service)
                    + "&client="
                    + ApiClient.encode(client)
                    + "&at="
                    + ApiClient.encode(at)
                    + "&type="
                    + ApiClient.encode(type));
    if (json()) {
      printJson(e);
      return CtlMain.OK;
    }
    out()
        .println(
            "at "
                + e.path("at").asText()
                + ": state in force since "
                + e.path("stateSince").asText()
                + " (snapshot version "
                + e.path("snapshotVersion").asLong()
                + ", configuration version "
                + e.path("configVersion").asLong()
                + ")");
    ExplainCommand.print(this, e, client);
    return CtlMain.OK;
  }
}
