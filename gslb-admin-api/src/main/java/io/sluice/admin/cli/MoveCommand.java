package io.sluice.admin.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code move start|abort}: planned, gated moves of share between pools. */
@Command(
    name = "move",
    mixinStandardHelpOptions = true,
    description = "Start or abort a planned move of traffic between pools.",
    subcommands = {MoveCommand.Start.class, MoveCommand.Abort.class},
    footer = {
      "",
      "Example:",
      "  sluice ctl move start app.example.com --from eu-west-1 --to us-east-1 --steps 1,5,20,50,100",
      "  sluice ctl move start app.example.com --from eu-west-1 --to us-east-1 --region eu-west"
    })
final class MoveCommand {

  /** Starts a gated ramp. */
  @Command(
      name = "start",
      mixinStandardHelpOptions = true,
      description =
          "Move the share of --from pools to --to pools as a gated ramp. Asks unless --yes.",
      footer = {
        "",
        "Example:",
        "  sluice ctl move start app.example.com --from eu-west-1 --to us-east-1 --steps 5,50,100",
        "  sluice ctl move start app.example.com --from eu-west-1 --to us-east-1 --region eu-west"
      })
  static final class Start extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Option(
        names = "--from",
        split = ",",
        required = true,
        paramLabel = "POOL",
        description = "Pools to move away from.")
    List<String> from;

    @Option(
        names = "--to",
        split = ",",
        required = true,
        paramLabel = "POOL",
        description = "Pools to move to.")
    List<String> to;

    @Option(
        names = "--steps",
        split = ",",
        paramLabel = "PERCENT",
        description = "Ramp steps in percent (default: the service's configured steps).")
    List<Integer> steps = List.of();

    @Option(
        names = "--region",
        paramLabel = "REGION",
        description = "Move only clients mapped to REGION (default: clients of every region).")
    String region;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      confirm(
          change.yes,
          "Move "
              + (region == null ? "" : "clients of region " + region + " of ")
              + service
              + " from "
              + from
              + " to "
              + to
              + (steps.isEmpty() ? "" : " in steps " + steps)
              + ".");
      Map<String, Object> b = body(change.reason, change.requestId);
      b.put("from", from);
      b.put("to", to);
      b.put("steps", steps);
      if (region != null) {
        b.put("region", region);
      }
      return printResult(api().send("POST", svcPath(service) + "/move", b));
    }
  }

  /** Aborts the move in progress, keeping its current step. */
  @Command(
      name = "abort",
      mixinStandardHelpOptions = true,
      description =
          "Abort the move in progress on SERVICE, holding its current step (use rollback to undo it).",
      footer = {"", "Example:", "  sluice ctl move abort app.example.com"})
  static final class Abort extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      return printResult(
          api()
              .send(
                  "POST", svcPath(service) + "/move/abort", body(change.reason, change.requestId)));
    }
  }
}
