package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code switches list|show}: the post-mortem records of traffic shifts. */
@Command(
    name = "switches",
    mixinStandardHelpOptions = true,
    description = "Switch records: what moved, when, why, the step curve and the gates.",
    subcommands = {SwitchesCommand.ListRecords.class, SwitchesCommand.Show.class},
    footer = {
      "",
      "Example:",
      "  sluice ctl switches list --service app.example.com",
      "  sluice ctl switches show sw-42"
    })
final class SwitchesCommand {

  /** Lists switch records, newest first. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List switch records, newest first.",
      footer = {"", "Example:", "  sluice ctl switches list --service app.example.com"})
  static final class ListRecords extends ApiCommand {
    @Option(names = "--service", paramLabel = "SERVICE", description = "Only this service.")
    String service;

    @Override
    public Integer call() {
      JsonNode r =
          api()
              .get(
                  "/api/v1/switches"
                      + (service == null ? "" : "?service=" + ApiClient.encode(service)));
      if (json()) {
        printJson(r);
        return CtlMain.OK;
      }
      Table t = new Table("ID", "SERVICE", "TRIGGER", "FROM", "TO", "STARTED", "OUTCOME");
      for (JsonNode s : r.path("switches")) {
        t.row(
            s.path("id").asText(),
            s.path("service").asText(),
            s.path("trigger").asText(),
            StatusCommand.text(s.path("from")),
            StatusCommand.text(s.path("to")),
            time().when(s.path("startedMillis").asLong()),
            s.path("outcome").asText());
      }
      t.print(out(), ctl().colour());
      return CtlMain.OK;
    }
  }

  /** Shows one switch record in full. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Show one switch record: steps with times, gates and what they measured.",
      footer = {"", "Example:", "  sluice ctl switches show sw-42"})
  static final class Show extends ApiCommand {
    @Parameters(paramLabel = "ID", description = "The switch record id.")
    String id;

    @Override
    public Integer call() {
      JsonNode s = api().get("/api/v1/switches/" + ApiClient.encode(id));
      if (json()) {
        printJson(s);
        return CtlMain.OK;
      }
      out().println("switch   " + s.path("id").asText() + "  (" + s.path("outcome").asText() + ")");
      out().println("service  " + s.path("service").asText());
      out().println("trigger  " + s.path("trigger").asText());
      out()
          .println(
              "from     "
                  + StatusCommand.text(s.path("from"))
                  + "  to "
                  + StatusCommand.text(s.path("to")));
      HumanTime time = time();
      out().println("started  " + time.when(s.path("startedMillis").asLong()));
      out()
          .println(
              "ended    "
                  + (s.path("endedMillis").isNumber()
                      ? time.when(s.path("endedMillis").asLong())
                          + ", after "
                          + HumanTime.duration(
                              s.path("endedMillis").asLong() - s.path("startedMillis").asLong())
                      : "-"));
      out().println("steps:");
      for (JsonNode step : s.path("steps")) {
        out()
            .println(
                "  "
                    + (step.hasNonNull("atMillis")
                        ? time.at(step.path("atMillis").asLong()) + "  "
                        : "")
                    + StatusCommand.summary(step));
      }
      out().println("details: " + StatusCommand.summary(s.path("details")));
      return CtlMain.OK;
    }
  }
}
