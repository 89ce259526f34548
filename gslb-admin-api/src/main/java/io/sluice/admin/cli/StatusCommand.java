package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** One screen: versions, freeze, every service's shares, ramp, drill and pending step, pools. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Show services, shares, ramps, drills, pending steps, freeze, pool health and loads.",
    footer = {"", "Example:", "  sluice ctl status", "  sluice ctl status app.example.com --json"})
final class StatusCommand extends ApiCommand {
  @Parameters(arity = "0..1", paramLabel = "SERVICE", description = "Show only this service.")
  String service;

  @Override
  public Integer call() {
    JsonNode st = api().get("/api/v1/status");
    String only = service == null ? null : normalize(service);
    if (json()) {
      printJson(st);
      return CtlMain.OK;
    }
    boolean colour = ctl().colour();
    boolean frozen = st.path("frozen").asBoolean();
    String head =
        "snapshot "
            + st.path("snapshotVersion").asLong()
            + "  config "
            + st.path("configVersion").asLong()
            + "  health "
            + st.path("healthVersion").asLong()
            + "  automation: ";
    String state = frozen ? "FROZEN (global)" : "running";
    out().println(head + (colour && frozen ? Style.RED + state + Style.RESET : state));
    out().println();
    HumanTime time = time();
    Table services =
        new Table("SERVICE", "MODE", "FROZEN", "SHARES", "RAMP", "DRILL", "PENDING", "TTL");
    List<String> pools = new ArrayList<>();
    for (JsonNode s : st.path("services")) {
      if (only != null && !only.equals(s.path("service").asText())) {
        continue;
      }
      boolean f = s.path("frozen").asBoolean() || s.path("globallyFrozen").asBoolean();
      List<String> shares = new ArrayList<>();
      s.path("shares")
          .properties()
          .forEach(
              e -> {
                shares.add(e.getKey() + " " + percent(e.getValue().asDouble()));
                pools.add(e.getKey());
              });
      services.row(
          s.path("service").asText(),
          s.path("mode").asText("-"),
          Style.flag(f ? "yes" : "no", f),
          String.join(", ", shares),
          Style.flag(
              ShiftCells.ramp(s.path("ramp"), time),
              s.path("ramp").path("state").asText().equals("paused")),
          ShiftCells.drill(s.path("drill"), time),
          Style.flag(ShiftCells.pending(s.path("pending"), time), s.path("pending").isObject()),
          s.path("ttlServed").asText("-"));
    }
    if (only != null && services.isEmpty()) {
      throw new CtlException(CtlMain.FAILED, "no service '" + service + "'");
    }
    services.print(out(), colour);
    out().println();
    Table endpoints =
        new Table(
            "POOL",
            "REGION",
            "ENDPOINT",
            "VERDICT",
            "SINCE",
            "P50 MS",
            "P99 MS",
            "DRAINED",
            "REASON");
    for (JsonNode p : st.path("pools")) {
      String name = p.path("name").asText();
      if (only != null && !pools.contains(name)) {
        continue;
      }
      for (JsonNode e : p.path("endpoints")) {
        boolean drained = p.path("drained").asBoolean() || e.path("drained").asBoolean();
        endpoints.row(
            name,
            p.path("region").asText("-"),
            e.path("name").asText(),
            Style.verdict(e.path("verdict").asText()),
            e.path("sinceMillis").asLong() > 0 ? time.ago(e.path("sinceMillis").asLong()) : "-",
            number(e.path("rttP50Millis")),
            number(e.path("rttP99Millis")),
            Style.flag(drained ? "yes" : "no", drained),
            e.path("reason").asText("-"));
      }
    }
    endpoints.print(out(), colour);
    Table loads = new Table("POOL", "LOAD", "OF CAPACITY", "SOURCE", "REPORTED", "STALE");
    for (JsonNode p : st.path("pools")) {
      JsonNode l = p.path("load");
      if (l.isObject() && (only == null || pools.contains(p.path("name").asText()))) {
        boolean stale = l.path("stale").asBoolean();
        loads.row(
            p.path("name").asText(),
            number(l.path("value")),
            l.path("percentOfCapacity").isNumber()
                ? percent(l.path("percentOfCapacity").asDouble())
                : "-",
            l.path("source").asText(),
            l.path("reportedMillis").isNumber() ? time.ago(l.path("reportedMillis").asLong()) : "-",
            Style.flag(stale ? "yes (ignored)" : "no", stale));
      }
    }
    if (!loads.isEmpty()) {
      out().println();
      loads.print(out(), colour);
    }
    return CtlMain.OK;
  }

  static String normalize(String service) {
    String s = service.toLowerCase(Locale.ROOT);
    return s.endsWith(".") ? s : s + ".";
  }

  static String percent(double p) {
    return (p == Math.rint(p) ? String.valueOf((long) p) : String.format(Locale.ROOT, "%.1f", p))
        + "%";
  }

  private static String number(JsonNode n) {
    return n.isNumber() ? String.format(Locale.ROOT, "%.1f", n.asDouble()) : "-";
  }

  /** A one-line summary of an object such as a switch step: {@code key=value key=value}. */
  static String summary(JsonNode n) {
    if (n == null || n.isMissingNode() || n.isNull() || n.isEmpty()) {
      return "-";
    }
    List<String> parts = new ArrayList<>();
    n.properties().forEach(e -> parts.add(e.getKey() + "=" + text(e.getValue())));
    return String.join(" ", parts);
  }

  static String text(JsonNode v) {
    if (v.isArray()) {
      List<String> items = new ArrayList<>();
      v.forEach(x -> items.add(text(x)));
      return String.join(",", items);
    }
    return v.isValueNode() ? v.asText() : v.toString();
  }
}
