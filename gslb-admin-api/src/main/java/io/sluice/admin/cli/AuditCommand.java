package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.config.DurationParser;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Lists audit events, newest first, filtered and paged. */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = "List audit events, newest first.",
    footer = {
      "",
      "Example:",
      "  sluice ctl audit --service app.example.com --since 1h",
      "  sluice ctl audit --actor otto --from 2026-11-29T02:00:00Z --limit 20"
    })
final class AuditCommand extends ApiCommand {
  @Option(names = "--service", paramLabel = "SERVICE", description = "Only this service.")
  String service;

  @Option(
      names = "--actor",
      paramLabel = "NAME",
      description = "Only this actor (token name, controller, probe).")
  String actor;

  @Option(
      names = "--since",
      paramLabel = "DURATION",
      description = "Only events in the last DURATION (such as 30m, 2h).")
  String since;

  @Option(
      names = "--from",
      paramLabel = "TIME",
      description = "Only events at or after TIME (ISO-8601, such as 2026-11-29T02:00:00Z).")
  String from;

  @Option(
      names = "--to",
      paramLabel = "TIME",
      description = "Only events at or before TIME (ISO-8601).")
  String to;

  @Option(
      names = "--limit",
      defaultValue = "50",
      paramLabel = "N",
      description = "At most N events (1..1000, default ${DEFAULT-VALUE}).")
  int limit;

  @Option(
      names = "--offset",
      defaultValue = "0",
      paramLabel = "N",
      description = "Skip the N newest matching events.")
  int offset;

  @Override
  public Integer call() {
    StringBuilder q = new StringBuilder("/api/v1/audit?limit=" + limit + "&offset=" + offset);
    if (service != null) {
      q.append("&service=").append(ApiClient.encode(service));
    }
    if (actor != null) {
      q.append("&actor=").append(ApiClient.encode(actor));
    }
    Long fromMillis = from == null ? null : instant("--from", from);
    if (since != null) {
      if (fromMillis != null) {
        throw new CtlException(CtlMain.USAGE, "give --since or --from, not both");
      }
      try {
        fromMillis = time().now() - DurationParser.parse(since).toMillis();
      } catch (IllegalArgumentException e) {
        throw new CtlException(CtlMain.USAGE, "--since: " + e.getMessage());
      }
    }
    if (fromMillis != null) {
      q.append("&from=").append(fromMillis);
    }
    if (to != null) {
      q.append("&to=").append(instant("--to", to));
    }
    JsonNode r = api().get(q.toString());
    if (json()) {
      printJson(r);
      return CtlMain.OK;
    }
    // On a node of a cluster every event names the node it was made on: show it.
    boolean cluster = false;
    for (JsonNode e : r.path("events")) {
      cluster |= e.path("details").hasNonNull("origin");
    }
    List<String> header =
        new ArrayList<>(
            List.of("SEQ", "TIME", "ACTOR", "ROLE", "ACTION", "TARGET", "VERSIONS", "REASON"));
    if (cluster) {
      header.add(2, "NODE");
    }
    HumanTime time = time();
    Table t = new Table(header.toArray(String[]::new));
    for (JsonNode e : r.path("events")) {
      List<Object> row =
          new ArrayList<>(
              List.of(
                  e.path("seq").asLong(),
                  time.when(e.path("timeMillis").asLong()),
                  e.path("actor").asText(),
                  e.path("role").asText(),
                  action(e),
                  target(e),
                  e.path("versionBefore").asLong() + "->" + e.path("versionAfter").asLong(),
                  e.path("reason").asText("")));
      if (cluster) {
        row.add(2, e.path("details").path("origin").asText("-"));
      }
      t.row(row.toArray());
    }
    t.print(out(), ctl().colour());
    if (r.hasNonNull("nextOffset")) {
      out().println("(more: --offset " + r.get("nextOffset").asInt() + ")");
    }
    return CtlMain.OK;
  }

  /**
   * What the event acted on: its service, else the pool or endpoint of a drain, a verdict change, a
   * flap hold or a load report, else "all services" for a global freeze, else "-".
   */
  static String target(JsonNode e) {
    if (e.hasNonNull("service")) {
      return e.path("service").asText();
    }
    JsonNode d = e.path("details");
    for (String key : new String[] {"target", "endpoint", "pool"}) {
      if (d.hasNonNull(key) && d.path(key).isValueNode()) {
        return d.path(key).asText();
      }
    }
    String action = e.path("action").asText();
    return action.equals("freeze") || action.equals("unfreeze") ? "all services" : "-";
  }

  /** The action, a verdict change with what it changed: "verdict-change up → down". */
  static String action(JsonNode e) {
    String action = e.path("action").asText();
    JsonNode d = e.path("details");
    if (d.hasNonNull("from") && d.hasNonNull("to") && d.path("to").isTextual()) {
      return action
          + " "
          + d.path("from").asText().toLowerCase(Locale.ROOT)
          + " → "
          + d.path("to").asText().toLowerCase(Locale.ROOT);
    }
    return action;
  }

  private static long instant(String option, String text) {
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new CtlException(
          CtlMain.USAGE,
          option + ": expected an ISO-8601 time such as 2026-11-29T02:00:00Z, was '" + text + "'");
    }
  }
}
