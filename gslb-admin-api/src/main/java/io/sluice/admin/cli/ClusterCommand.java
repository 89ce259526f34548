package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import picocli.CommandLine.Command;

/** {@code cluster status}: the nodes of the cluster as the node asked sees them. */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = "The cluster's nodes: leader, applied revision, lag, connected or stale.",
    subcommands = {ClusterCommand.Status.class},
    footer = {"", "Example:", "  sluice ctl cluster status"})
final class ClusterCommand {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

  /** Every node with its region, role, applied revision, lag and contact. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "Every node: region, role (leader/follower), applied revision, lag behind the shared"
              + " state, connected or stale since when.",
      footer = {
        "",
        "Example:",
        "  sluice ctl cluster status",
        "  sluice ctl cluster status --json"
      })
  static final class Status extends ApiCommand {
    @Override
    public Integer call() {
      JsonNode c = api().get("/api/v1/cluster");
      if (json()) {
        printJson(c);
        return CtlMain.OK;
      }
      if (!c.path("clustered").asBoolean()) {
        out().println(c.path("message").asText("not clustered"));
        return CtlMain.OK;
      }
      boolean colour = ctl().colour();
      boolean connected = c.path("connected").asBoolean();
      String contact =
          connected
              ? "etcd connected"
              : "etcd UNREACHABLE, serving the last known state since "
                  + when(c.path("lastContact"));
      out()
          .println(
              "node "
                  + c.path("node").asText()
                  + "  leader "
                  + c.path("leader").asText("none")
                  + "  shared revision "
                  + c.path("sharedRevision").asLong()
                  + "  "
                  + (colour && !connected ? Style.RED + contact + Style.RESET : contact)
                  + " (last contact "
                  + ago(c.path("lastContactAgeSeconds"))
                  + ")");
      out().println();
      Table t = new Table("NODE", "REGION", "ROLE", "APPLIED", "LAG", "STATE", "DNS", "ADMIN");
      for (JsonNode n : c.path("nodes")) {
        boolean live = n.path("connected").asBoolean();
        long lag = n.path("lag").asLong();
        t.row(
            n.path("node").asText() + (n.path("self").asBoolean() ? " (this node)" : ""),
            n.path("region").asText("-"),
            n.path("role").asText(),
            n.path("appliedRevision").asLong(),
            Style.flag(String.valueOf(lag), lag > 0),
            Style.flag(
                live
                    ? "connected"
                    : "stale since "
                        + when(n.path("staleSince"))
                        + " ("
                        + ago(n.path("lastHeartbeatAgeSeconds"))
                        + ")",
                !live),
            n.path("dns").asText("-"),
            n.path("admin").asText("-"));
      }
      t.print(out(), colour);
      return CtlMain.OK;
    }
  }

  /** An ISO instant from the API as people read it. */
  static String when(JsonNode iso) {
    return iso.isTextual() ? TIME.format(Instant.parse(iso.asText())) : "-";
  }

  /** An age in seconds as people read it: "4 s ago", "3 min 20 s ago", "2 h 5 min ago". */
  static String ago(JsonNode seconds) {
    if (!seconds.isNumber()) {
      return "never";
    }
    return HumanTime.duration(Math.round(seconds.asDouble() * 1000)) + " ago";
  }
}
