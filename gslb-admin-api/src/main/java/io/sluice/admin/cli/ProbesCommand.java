package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;

/** {@code probes}: the probe engine's status, as docs/health.md describes it. */
@Command(
    name = "probes",
    mixinStandardHelpOptions = true,
    description =
        "Probe status: vantages (fresh or stale, probe path ok or impaired), endpoints held by"
            + " flap damping, pools without checks, and each checked endpoint's last result.",
    footer = {"", "Example:", "  sluice ctl probes", "  sluice ctl probes --json"})
final class ProbesCommand extends ApiCommand {
  @Override
  public Integer call() {
    JsonNode p = api().get("/api/v1/probes");
    if (json()) {
      printJson(p);
      return CtlMain.OK;
    }
    if (!p.path("running").asBoolean(true)) {
      out().println(p.path("message").asText("no probe engine"));
      return CtlMain.OK;
    }
    boolean colour = ctl().colour();
    HumanTime time = time();
    out()
        .println(
            "vantage "
                + p.path("vantage").asText()
                + "  initial round "
                + (p.path("initialRoundComplete").asBoolean() ? "done" : "RUNNING")
                + "  "
                + p.path("checksRun").asLong()
                + " checks run, "
                + p.path("inFlight").asInt()
                + " in flight, "
                + p.path("queued").asInt()
                + " queued, schedule lag p99 "
                + Math.round(p.path("lagP99Millis").asDouble())
                + " ms");
    out().println("verdict history: " + p.path("history").asText("-"));
    JsonNode x = p.path("exchange");
    out()
        .println(
            "opinion exchange: "
                + (x.path("shared").asBoolean()
                    ? (x.path("connected").asBoolean() ? "connected" : "CUT OFF")
                        + (x.path("sinceMillis").asLong() > 0
                            ? " since " + time.when(x.path("sinceMillis").asLong())
                            : "")
                        + (x.hasNonNull("note") ? ": " + x.path("note").asText() : "")
                    : x.path("note").asText("single node")));
    List<String> impaired = new ArrayList<>();
    p.path("pathImpaired").forEach(v -> impaired.add(v.asText()));
    String path =
        impaired.isEmpty()
            ? "ok on every vantage"
            : "IMPAIRED on "
                + String.join(", ", impaired)
                + " (their other results count as unknown)";
    out()
        .println(
            "probe path: "
                + (colour && !impaired.isEmpty() ? Style.RED + path + Style.RESET : path));
    out().println();

    Table vantages = new Table("VANTAGE", "VIA", "RESULTS", "PROBE PATH", "LAST SEEN");
    for (JsonNode v : p.path("vantages")) {
      boolean fresh = v.path("fresh").asBoolean();
      boolean ok = v.path("pathOk").asBoolean();
      vantages.row(
          v.path("name").asText(),
          v.hasNonNull("via")
              ? v.path("via").asText()
              : v.path("name").asText().equals(p.path("vantage").asText()) ? "this node" : "agent",
          Style.flag(fresh ? "fresh" : "STALE", !fresh),
          Style.flag(ok ? "ok" : "IMPAIRED", !ok),
          time.when(v.path("lastSeenMillis").asLong()));
    }
    vantages.print(out(), colour);
    out().println();

    if (p.path("held").isEmpty()) {
      out().println("held endpoints: none (no verdict held by flap damping)");
    } else {
      Table held = new Table("HELD ENDPOINT", "VERDICT", "UNTIL");
      for (JsonNode h : p.path("held")) {
        held.row(
            h.path("endpoint").asText(),
            Style.verdict(h.path("verdict").asText().toLowerCase(Locale.ROOT)),
            time.when(h.path("untilMillis").asLong()));
      }
      held.print(out(), colour);
    }
    List<String> unchecked = new ArrayList<>();
    p.path("uncheckedPools").forEach(v -> unchecked.add(v.asText()));
    out()
        .println(
            "unchecked pools: "
                + (unchecked.isEmpty()
                    ? "none"
                    : String.join(", ", unchecked) + " (no health checks: served as up)"));
    out().println();

    Table checked = new Table("ENDPOINT", "VERDICT", "STALE", "VANTAGES AGREEING", "LAST RESULT");
    for (JsonNode e : p.path("checked")) {
      boolean stale = e.path("stale").asBoolean();
      checked.row(
          e.path("endpoint").asText(),
          Style.verdict(e.path("verdict").asText()),
          Style.flag(stale ? "yes" : "no", stale),
          e.path("vantagesAgreeing").asInt() + " of " + e.path("vantagesEligible").asInt(),
          time.ago(e.path("lastResultMillis").asLong()));
    }
    checked.print(out(), colour);
    return CtlMain.OK;
  }
}
