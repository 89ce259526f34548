package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code keys [ZONE]}: DNSSEC keys and DS records; {@code keys rollover}: one rollover step. */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = {
      "DNSSEC keys of the signed zones (all, or ZONE): tag, algorithm, role, state, times, the DS",
      "records to hand to the parent, and the rollover steps possible next (docs/dnssec.md)."
    },
    subcommands = {KeysCommand.Rollover.class},
    footer = {
      "",
      "Example:",
      "  sluice ctl keys",
      "  sluice ctl keys example.com",
      "  sluice ctl keys rollover example.com zsk-publish --reason 'quarterly ZSK roll'"
    })
final class KeysCommand extends ApiCommand {
  @Parameters(index = "0", arity = "0..1", paramLabel = "ZONE", description = "One zone.")
  String zone;

  @Override
  public Integer call() {
    JsonNode r =
        zone == null
            ? api().get("/api/v1/keys")
            : api().get("/api/v1/zones/" + ApiClient.encode(zone) + "/keys");
    if (json()) {
      printJson(r);
      return CtlMain.OK;
    }
    if (zone != null) {
      print(r);
    } else if (r.path("zones").isEmpty()) {
      out().println("no signed zones");
    } else {
      boolean first = true;
      for (JsonNode z : r.path("zones")) {
        if (!first) {
          out().println();
        }
        first = false;
        print(z);
      }
    }
    return CtlMain.OK;
  }

  private void print(JsonNode z) {
    boolean colour = ctl().colour();
    out().println("zone " + z.path("zone").asText());
    Table t =
        new Table(
            "TAG", "ALG", "ROLE", "STATE", "PUBLISH", "ACTIVATE", "INACTIVE", "DELETE", "CDS");
    for (JsonNode k : z.path("keys")) {
      String state = k.path("state").asText();
      t.row(
          k.path("tag").asInt(),
          k.path("algorithmName").asText(),
          k.path("role").asText(),
          Style.flag(state, state.equals("retired") || state.equals("published")),
          ClusterCommand.when(k.path("publish")),
          ClusterCommand.when(k.path("activate")),
          ClusterCommand.when(k.path("inactive")),
          ClusterCommand.when(k.path("delete")),
          k.path("cds").asBoolean() ? "yes" : "-");
    }
    t.print(out(), colour);
    out().println("DS records for the parent:");
    for (JsonNode ds : z.path("ds")) {
      out().println("  " + ds.asText());
    }
    if (!z.path("next").isEmpty()) {
      out().println("next rollover steps:");
      for (JsonNode n : z.path("next")) {
        out()
            .println(
                "  "
                    + n.path("step").asText()
                    + " (from "
                    + ClusterCommand.when(n.path("notBefore"))
                    + "): "
                    + n.path("what").asText());
      }
    }
    for (JsonNode p : z.path("problems")) {
      out().println("problem: " + p.asText());
    }
  }

  /** {@code keys rollover ZONE STEP}: runs one step, or says from when it can run. */
  @Command(
      name = "rollover",
      mixinStandardHelpOptions = true,
      description = {
        "Run one DNSSEC rollover step of ZONE (admin role), audited with --reason. Refused (exit",
        "3) until the TTLs of the records it replaces expired, saying from when it can run.",
        "ZSK pre-publication: zsk-publish, zsk-activate, zsk-remove.",
        "KSK (or CSK) double-DS: ksk-publish, ksk-ds-seen (the parent serves the new DS),"
            + " ksk-remove."
      },
      footer = {
        "",
        "Example:",
        "  sluice ctl keys rollover example.com ksk-ds-seen --reason 'DS 4711 seen at the registry'"
      })
  static final class Rollover extends ApiCommand {
    @Parameters(index = "0", paramLabel = "ZONE", description = "The signed zone.")
    String zone;

    @Parameters(index = "1", paramLabel = "STEP", description = "The step, e.g. zsk-publish.")
    String step;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the audit log.")
    String reason;

    @Override
    public Integer call() {
      Map<String, Object> body = body(reason, null);
      body.put("step", step);
      JsonNode r =
          api().send("POST", "/api/v1/zones/" + ApiClient.encode(zone) + "/keys/rollover", body);
      if (json()) {
        printJson(r);
      } else {
        out().println(r.path("message").asText("done"));
      }
      return CtlMain.OK;
    }
  }
}
