package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Maintenance windows: schedule, list, cancel. */
@Command(
    name = "maintenance",
    mixinStandardHelpOptions = true,
    description =
        "Schedule a drain of a pool or endpoint (or a move of a service) for a time, with the"
            + " automation of the services it affects frozen meanwhile; list and cancel windows.",
    subcommands = {
      MaintenanceCommand.Add.class,
      MaintenanceCommand.ListWindows.class,
      MaintenanceCommand.Cancel.class
    },
    footer = {
      "",
      "Example:",
      "  sluice ctl maintenance add drain eu-west-1/lon-b --at 2026-12-01T02:00:00Z --for 2h"
          + " -r 'disk swap'",
      "  sluice ctl maintenance add move app.example.com --from eu-west-1 --to us-east-1 --for 30m",
      "  sluice ctl maintenance list",
      "  sluice ctl maintenance cancel mw-12 -r 'done early'"
    })
final class MaintenanceCommand implements Runnable {
  private static final String PATH = "/api/v1/maintenance";

  @Override
  public void run() {
    throw new CtlException(CtlMain.USAGE, "give a subcommand: add, list or cancel");
  }

  /** Schedules a window. */
  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description =
          "Schedule a window: 'drain POOL[/ENDPOINT]' or 'move SERVICE --from P --to Q', starting"
              + " --at a UTC time (default: now) for --for a duration (operator role).",
      footer = {
        "",
        "Example:",
        "  sluice ctl maintenance add drain eu-west-1/lon-b --at 2026-12-01T02:00:00Z --for 2h"
            + " -r 'disk swap'"
      })
  static final class Add extends ApiCommand {
    @Parameters(index = "0", paramLabel = "KIND", description = "drain or move.")
    String kind;

    @Parameters(
        index = "1",
        paramLabel = "TARGET",
        description = "POOL or POOL/ENDPOINT to drain, or the SERVICE to move.")
    String target;

    @Option(names = "--from", split = ",", paramLabel = "POOL", description = "Move: from pools.")
    List<String> from;

    @Option(names = "--to", split = ",", paramLabel = "POOL", description = "Move: to pools.")
    List<String> to;

    @Option(
        names = "--at",
        paramLabel = "TIME",
        description = "Start, ISO-8601 UTC (2026-12-01T02:00:00Z); default now.")
    String at;

    @Option(
        names = "--for",
        required = true,
        paramLabel = "DURATION",
        description = "How long: 30m, 2h, 1d.")
    String duration;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      Map<String, Object> b = body(change.reason, change.requestId);
      b.put("kind", kind);
      b.put("target", target);
      if (from != null) {
        b.put("from", from);
      }
      if (to != null) {
        b.put("to", to);
      }
      if (at != null) {
        b.put("start", at);
      }
      b.put("duration", duration);
      return printResult(api().send("POST", PATH, b));
    }
  }

  /** Lists the scheduled and running windows. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The scheduled and running windows, soonest first (viewer role).",
      footer = {"", "Example:", "  sluice ctl maintenance list"})
  static final class ListWindows extends ApiCommand {
    @Override
    public Integer call() {
      JsonNode r = api().get(PATH);
      if (json()) {
        printJson(r);
        return CtlMain.OK;
      }
      if (r.path("windows").isEmpty()) {
        out().println("no maintenance windows");
        return CtlMain.OK;
      }
      table(r.path("windows")).print(out(), ctl().colour());
      return CtlMain.OK;
    }
  }

  /** The windows as {@code list} and {@code status} print them. */
  static Table table(JsonNode windows) {
    Table t = new Table("ID", "STATE", "KIND", "TARGET", "START", "END", "FREEZES", "BY", "REASON");
    for (JsonNode w : windows) {
      String target = w.path("target").asText();
      if ("move".equals(w.path("kind").asText())) {
        target += " " + names(w.path("from")) + " -> " + names(w.path("to"));
      }
      boolean active = "active".equals(w.path("state").asText());
      t.row(
          w.path("id").asText(),
          Style.flag(w.path("state").asText(), active),
          w.path("kind").asText(),
          target,
          w.path("start").asText(),
          w.path("end").asText(),
          names(w.path("services")),
          w.path("createdBy").asText("-"),
          w.path("reason").asText(""));
    }
    return t;
  }

  private static String names(JsonNode list) {
    List<String> out = new ArrayList<>();
    list.forEach(n -> out.add(n.asText()));
    return String.join(",", out);
  }

  /** Cancels a window: a scheduled one is dropped, a running one is undone now. */
  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description =
          "Cancel window ID: a scheduled one never starts; a running one ends now (undrained or"
              + " moved back, automation unfrozen). Operator role.",
      footer = {"", "Example:", "  sluice ctl maintenance cancel mw-12 -r 'done early'"})
  static final class Cancel extends ApiCommand {
    @Parameters(paramLabel = "ID", description = "The window, e.g. mw-12.")
    String id;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      return printResult(
          api()
              .send(
                  "POST",
                  PATH + "/" + ApiClient.encode(id) + "/cancel",
                  body(change.reason, change.requestId)));
    }
  }
}
