package io.sluice.admin.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code weights set}: sets pool weights of a service. */
@Command(
    name = "weights",
    mixinStandardHelpOptions = true,
    description = "Pool weights of a service.",
    subcommands = WeightsCommand.Set.class,
    footer = {"", "Example:", "  sluice ctl weights set app.example.com eu-west-1=3 us-east-1=1"})
final class WeightsCommand {

  /** Sets weights at once, or as a ramp with {@code --ramp}. */
  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = "Set pool weights (0..65535) of SERVICE. Asks unless --yes.",
      footer = {
        "",
        "Example:",
        "  sluice ctl weights set app.example.com eu-west-1=0 us-east-1=1 --ramp -r 'maintenance'"
      })
  static final class Set extends ApiCommand {
    @Parameters(index = "0", paramLabel = "SERVICE", description = "The service.")
    String service;

    @Parameters(
        index = "1..*",
        arity = "1..*",
        paramLabel = "POOL=WEIGHT",
        description = "New weights, such as eu-west-1=3.")
    Map<String, Integer> weights = new LinkedHashMap<>();

    @Option(names = "--ramp", description = "Move to the new weights as a gated ramp.")
    boolean ramp;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      confirm(
          change.yes,
          "Set weights of "
              + service
              + " to "
              + weights
              + (ramp ? " as a ramp" : " at once")
              + ".");
      Map<String, Object> b = body(change.reason, change.requestId);
      b.put("weights", weights);
      b.put("ramp", ramp);
      return printResult(api().send("PUT", svcPath(service) + "/weights", b));
    }
  }
}
