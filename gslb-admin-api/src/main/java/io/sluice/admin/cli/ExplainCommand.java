package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The policy chain's step-by-step decision for one client. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = "Show how the policy chain answers SERVICE for CLIENT (an address or a subnet).",
    footer = {
      "",
      "Example:",
      "  sluice ctl explain app.example.com 10.1.2.0/24",
      "  sluice ctl explain app.example.com 2001:db8::1 --type AAAA"
    })
final class ExplainCommand extends ApiCommand {
  @Parameters(index = "0", paramLabel = "SERVICE", description = "The service.")
  String service;

  @Parameters(index = "1", paramLabel = "CLIENT", description = "Client address or subnet (ECS).")
  String client;

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
                "/api/v1/explain?service="
                    + ApiClient.encode(service)
                    + "&client="
                    + ApiClient.encode(client)
                    + "&type="
                    + ApiClient.encode(type));
    if (json()) {
      printJson(e);
      return CtlMain.OK;
    }
    print(this, e, client);
    return CtlMain.OK;
  }

  /** Prints an explanation (explain now, why at an earlier time) as a table of the steps. */
  static void print(ApiCommand cmd, JsonNode e, String client) {
    cmd.out()
        .println(e.path("service").asText() + " " + e.path("type").asText() + " for " + client);
    cmd.out()
        .println(
            "region "
                + e.path("region").asText("-")
                + " (from "
                + e.path("regionSource").asText("-")
                + ")");
    Table t = new Table("STEP", "IN", "OUT", "NOTE");
    for (JsonNode s : e.path("steps")) {
      t.row(
          s.path("name").asText(),
          StatusCommand.text(s.path("in")),
          StatusCommand.text(s.path("out")),
          s.path("note").asText(""));
    }
    t.print(cmd.out(), cmd.ctl().colour());
    JsonNode d = e.path("decision");
    cmd.out()
        .println(
            "answer: "
                + d.path("outcome").asText()
                + " "
                + (d.hasNonNull("cname")
                    ? "CNAME " + d.get("cname").asText()
                    : StatusCommand.text(d.path("addresses")))
                + " ttl "
                + d.path("ttl").asLong()
                + " pools "
                + StatusCommand.text(d.path("pools"))
                + " scope /"
                + d.path("scopePrefix").asInt());
  }
}
