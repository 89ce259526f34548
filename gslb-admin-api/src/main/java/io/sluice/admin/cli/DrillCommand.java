package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.config.DurationParser;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code drill start|stop|status}: a timed move of some clients, to rehearse a failover. */
@Command(
    name = "drill",
    mixinStandardHelpOptions = true,
    description = "Rehearse a failover: move a share of clients for a limited time.",
    subcommands = {DrillCommand.Start.class, DrillCommand.Stop.class, DrillCommand.Status.class},
    footer = {
      "",
      "Example:",
      "  sluice ctl drill start app.example.com --to us-east-1 --percent 5 --duration 10m"
    })
final class DrillCommand {

  /** Starts a drill. */
  @Command(
      name = "start",
      mixinStandardHelpOptions = true,
      description =
          "Move PERCENT of SERVICE's clients to --to pools for --duration. Asks unless --yes.",
      footer = {
        "",
        "Example:",
        "  sluice ctl drill start app.example.com --to us-east-1 --percent 5 --duration 10m --yes"
      })
  static final class Start extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Option(
        names = "--to",
        split = ",",
        required = true,
        paramLabel = "POOL",
        description = "Pools that receive the drill traffic.")
    List<String> to;

    @Option(
        names = "--percent",
        required = true,
        paramLabel = "N",
        description = "Share of clients, more than 0 and at most 50 (drills are small).")
    double percent;

    @Option(
        names = "--duration",
        defaultValue = "10m",
        paramLabel = "DURATION",
        description = "How long, such as 90s, 10m, 1h (default: ${DEFAULT-VALUE}).")
    String duration;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      Duration d;
      try {
        d = DurationParser.parse(duration);
      } catch (IllegalArgumentException e) {
        throw new CtlException(CtlMain.USAGE, "--duration: " + e.getMessage());
      }
      confirm(
          change.yes,
          "Drill on "
              + service
              + ": "
              + percent
              + "% of clients to "
              + to
              + " for "
              + duration
              + ".");
      Map<String, Object> b = body(change.reason, change.requestId);
      b.put("to", to);
      b.put("percent", percent);
      b.put("seconds", d.toSeconds());
      return printResult(api().send("POST", svcPath(service) + "/drill", b));
    }
  }

  /** Stops a drill. */
  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      description = "Stop the drill on SERVICE and restore its traffic.",
      footer = {"", "Example:", "  sluice ctl drill stop app.example.com"})
  static final class Stop extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      return printResult(
          api()
              .send(
                  "POST", svcPath(service) + "/drill/stop", body(change.reason, change.requestId)));
    }
  }

  /** Shows the drill of a service. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "Show the drill in progress on SERVICE, if any.",
      footer = {"", "Example:", "  sluice ctl drill status app.example.com"})
  static final class Status extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Override
    public Integer call() {
      JsonNode svc = api().get(svcPath(service));
      JsonNode drill = svc.path("status").path("drill");
      if (json()) {
        printJson(drill);
      } else if (drill.isMissingNode() || drill.isNull() || drill.isEmpty()) {
        out().println("no drill on " + svc.path("name").asText(service));
      } else {
        HumanTime time = time();
        out()
            .println(
                "drill on "
                    + svc.path("name").asText(service)
                    + ": "
                    + ShiftCells.drill(drill, time));
        out().println("  id:      " + drill.path("id").asText());
        out().println("  started: " + time.when(drill.path("startedMillis").asLong()));
        out().println("  ends:    " + time.when(drill.path("endsMillis").asLong()));
      }
      return CtlMain.OK;
    }
  }
}
