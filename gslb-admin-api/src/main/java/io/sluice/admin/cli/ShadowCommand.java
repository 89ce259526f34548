package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A service's shadow chain: what it would answer, and setting, removing or promoting it. */
@Command(
    name = "shadow",
    mixinStandardHelpOptions = true,
    description =
        "Report what SERVICE's shadow chain would have answered on the sampled queries: how many"
            + " clients would get a different pool, by region, and the nearest-hit and cross-region"
            + " shares live and candidate.",
    subcommands = {
      ShadowCommand.Set.class,
      ShadowCommand.Remove.class,
      ShadowCommand.Promote.class
    },
    footer = {
      "",
      "Example:",
      "  sluice ctl shadow app.example.com",
      "  sluice ctl shadow set app.example.com healthy geo latency weighted --sample 0.05",
      "  sluice ctl shadow promote app.example.com -r 'latency chain is better in ap-east'"
    })
final class ShadowCommand extends ApiCommand {
  @Parameters(arity = "0..1", paramLabel = "SERVICE", description = "The service.")
  String service;

  static String path(String service) {
    return "/api/v1/shadow/" + ApiClient.encode(service);
  }

  @Override
  public Integer call() {
    if (service == null) {
      throw new CtlException(
          CtlMain.USAGE, "give a SERVICE, or a subcommand: set, remove or promote");
    }
    JsonNode r = api().get(path(service));
    if (json()) {
      printJson(r);
      return CtlMain.OK;
    }
    out().println(r.path("service").asText());
    out().println("  live:      " + StatusCommand.text(r.path("chain")));
    out()
        .println(
            "  candidate: "
                + StatusCommand.text(r.path("candidate"))
                + " (sampling "
                + percent(r.path("sample").asDouble())
                + " of queries since "
                + r.path("since").asText("-")
                + ", "
                + r.path("dropped").asLong()
                + " samples dropped)");
    Table t =
        new Table(
            "REGION",
            "SAMPLED",
            "DIFFERENT",
            "CLIENTS",
            "NEAREST LIVE",
            "NEAREST CAND",
            "CROSS LIVE",
            "CROSS CAND");
    for (JsonNode x : r.path("regions")) {
      row(t, x);
    }
    row(t, r.path("all"));
    t.print(out(), ctl().colour());
    return CtlMain.OK;
  }

  private static void row(Table t, JsonNode x) {
    t.row(
        x.path("region").asText(),
        Long.toString(x.path("sampled").asLong()),
        Long.toString(x.path("differing").asLong()),
        Long.toString(x.path("clientsDiffering").asLong()),
        percent(x.path("liveNearest").asDouble()),
        percent(x.path("candidateNearest").asDouble()),
        percent(x.path("liveCrossRegion").asDouble()),
        percent(x.path("candidateCrossRegion").asDouble()));
  }

  private static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.1f%%", ratio * 100);
  }

  /** Sets (or replaces) the shadow chain: a new configuration version. */
  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description =
          "Give SERVICE the candidate chain STEP... (as the service's chain is written), evaluated"
              + " on a sample of queries and never served; a new configuration version (operator).",
      footer = {
        "",
        "Example:",
        "  sluice ctl shadow set app.example.com healthy geo latency weighted --sample 0.05"
      })
  static final class Set extends ApiCommand {
    @Parameters(index = "0", paramLabel = "SERVICE", description = "The service.")
    String service;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "STEP", description = "The steps.")
    List<String> steps;

    @Option(
        names = "--sample",
        paramLabel = "RATE",
        description = "Share of queries evaluated, more than 0 and at most 1 (default 0.01).")
    Double sample;

    @Option(
        names = {"-r", "--reason"},
        paramLabel = "TEXT",
        description = "Why, for the history and the audit log.")
    String reason;

    @Override
    public Integer call() {
      Map<String, Object> body = body(reason, null);
      body.put("chain", steps);
      if (sample != null) {
        body.put("sample", sample);
      }
      return printVersion(api().send("PUT", path(service), body, ApiClient.RELOAD_TIMEOUT_MILLIS));
    }
  }

  /** Removes the shadow chain: a new configuration version. */
  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = "Remove SERVICE's shadow chain; a new configuration version (operator).",
      footer = {"", "Example:", "  sluice ctl shadow remove app.example.com -r 'done'"})
  static final class Remove extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      return printVersion(
          api()
              .send(
                  "DELETE",
                  path(service),
                  body(change.reason, null),
                  ApiClient.RELOAD_TIMEOUT_MILLIS));
    }
  }

  /** Serves the shadow chain from now on: one audited configuration version. */
  @Command(
      name = "promote",
      mixinStandardHelpOptions = true,
      description =
          "Serve SERVICE's shadow chain as its chain from now on (the shadow is removed): one"
              + " validated, audited configuration version, applied by every node of a cluster."
              + " Asks unless --yes.",
      footer = {"", "Example:", "  sluice ctl shadow promote app.example.com -r 'better' --yes"})
  static final class Promote extends ApiCommand {
    @Parameters(paramLabel = "SERVICE", description = "The service.")
    String service;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      confirm(change.yes, "Promote the shadow chain of " + service + ": it is served from now on.");
      return printVersion(
          api()
              .send(
                  "POST",
                  path(service) + "/promote",
                  body(change.reason, null),
                  ApiClient.RELOAD_TIMEOUT_MILLIS));
    }
  }
}
