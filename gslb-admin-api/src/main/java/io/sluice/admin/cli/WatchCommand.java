package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.config.DurationParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code watch SERVICE}: a view of one service that refreshes until Ctrl-C: its ramp, drill and
 * pending step, the TTL served, the share of each pool per client region, and the answers each pool
 * got (from the node's metrics) since the last refresh.
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description =
        "Live view of SERVICE: shift progress (ramp step, next step, TTL served), each pool's"
            + " share per client region and the answers per pool and region, refreshed until"
            + " Ctrl-C.",
    footer = {
      "",
      "Example:",
      "  sluice ctl watch app.example.com",
      "  sluice ctl watch app.example.com --interval 5s",
      "  sluice ctl watch app.example.com --once"
    })
final class WatchCommand extends ApiCommand {
  /** Moves the cursor home and clears the screen, so each refresh replaces the last. */
  private static final String CLEAR = "\u001b[H\u001b[2J";

  @Parameters(paramLabel = "SERVICE", description = "The service to watch.")
  String service;

  @Option(
      names = "--interval",
      defaultValue = "2s",
      paramLabel = "DURATION",
      description = "Time between refreshes (default ${DEFAULT-VALUE}, at least 200ms).")
  String interval;

  @Option(names = "--once", description = "Print one view and exit (for scripts and logs).")
  boolean once;

  @Option(
      names = "--count",
      defaultValue = "0",
      paramLabel = "N",
      description = "Stop after N views (default: until Ctrl-C).")
  int count;

  /** One sample of the answer counters: per pool, and when it was taken. */
  private record Sample(Map<String, Double> answers, long atMillis) {}

  @Override
  public Integer call() throws InterruptedException {
    long every;
    try {
      every = DurationParser.parse(interval).toMillis();
    } catch (IllegalArgumentException e) {
      throw new CtlException(CtlMain.USAGE, "--interval: " + e.getMessage());
    }
    if (every < 200) {
      throw new CtlException(CtlMain.USAGE, "--interval: at least 200ms, was " + interval);
    }
    if (count < 0) {
      throw new CtlException(CtlMain.USAGE, "--count: must be 0 or more, was " + count);
    }
    int views = once ? 1 : count;
    String name = StatusCommand.normalize(service);
    ApiClient api = api();
    Sample last = null;
    boolean clear = ctl().io.tty() && !json();
    for (int i = 0; views == 0 || i < views; i++) {
      if (i > 0) {
        Thread.sleep(every);
      }
      JsonNode st = api.get("/api/v1/status");
      JsonNode svc = null;
      for (JsonNode s : st.path("services")) {
        if (s.path("service").asText().equals(name)) {
          svc = s;
        }
      }
      if (svc == null) {
        throw new CtlException(CtlMain.FAILED, "no service '" + service + "'");
      }
      if (json()) {
        printJson(svc);
        continue;
      }
      Sample now = sample(api, name);
      if (clear) {
        out().print(CLEAR);
      }
      print(svc, st.path("pools"), last, now, every, views);
      if (!clear && (views == 0 || i < views - 1)) {
        out().println();
      }
      out().flush();
      last = now;
    }
    return CtlMain.OK;
  }

  private void print(JsonNode svc, JsonNode pools, Sample last, Sample now, long every, int views) {
    HumanTime time = time();
    boolean colour = ctl().colour();
    out()
        .println(
            "watch "
                + svc.path("service").asText()
                + "  "
                + time.at(time.now())
                + (views == 1 ? "" : "  every " + HumanTime.duration(every) + ", Ctrl-C stops"));
    boolean frozen = svc.path("frozen").asBoolean() || svc.path("globallyFrozen").asBoolean();
    out()
        .println(
            "mode "
                + svc.path("mode").asText("-")
                + "  TTL served "
                + svc.path("ttlServed").asLong()
                + " s  frozen "
                + (frozen ? "YES" : "no"));
    out().println("ramp     " + ShiftCells.ramp(svc.path("ramp"), time));
    out().println("drill    " + ShiftCells.drill(svc.path("drill"), time));
    out().println("pending  " + ShiftCells.pending(svc.path("pending"), time));
    out().println();

    List<String> names = new ArrayList<>();
    svc.path("shares").fieldNames().forEachRemaining(names::add);
    Map<String, String> regionOf = new HashMap<>();
    for (JsonNode p : pools) {
      regionOf.put(p.path("name").asText(), p.path("region").asText("-"));
    }
    JsonNode byRegion = svc.path("sharesByRegion");
    if (byRegion.isObject() && !byRegion.isEmpty()) {
      List<String> header = new ArrayList<>(List.of("CLIENT REGION"));
      header.addAll(names);
      Table shares = new Table(header.toArray(String[]::new));
      byRegion
          .properties()
          .forEach(
              e -> {
                List<Object> row = new ArrayList<>(List.of(e.getKey()));
                for (String pool : names) {
                  JsonNode v = e.getValue().path(pool);
                  row.add(v.isNumber() ? ShiftCells.percent(v.asDouble()) : "-");
                }
                shares.row(row.toArray());
              });
      shares.print(out(), colour);
      out().println();
    }

    Table answers = new Table("POOL", "REGION", "SHARE", "ANSWERS", "ANSWERS/S");
    Map<String, Double> perRegion = new LinkedHashMap<>();
    double seconds = last == null ? 0 : (now.atMillis() - last.atMillis()) / 1000.0;
    for (String pool : names) {
      Double total = now.answers() == null ? null : now.answers().getOrDefault(pool, 0.0);
      Double rate = null;
      if (total != null && last != null && last.answers() != null && seconds > 0) {
        rate = (total - last.answers().getOrDefault(pool, 0.0)) / seconds;
        perRegion.merge(regionOf.getOrDefault(pool, "-"), rate, Double::sum);
      }
      answers.row(
          pool,
          regionOf.getOrDefault(pool, "-"),
          ShiftCells.percent(svc.path("shares").path(pool).asDouble()),
          total == null ? "-" : String.valueOf(Math.round(total)),
          rate == null ? "-" : String.format(Locale.ROOT, "%.1f", rate));
    }
    answers.print(out(), colour);
    if (now.answers() == null) {
      out().println("(answer counts unavailable: the node's /metrics could not be read)");
    } else if (!perRegion.isEmpty()) {
      List<String> parts = new ArrayList<>();
      perRegion.forEach((r, v) -> parts.add(r + " " + String.format(Locale.ROOT, "%.1f", v)));
      out().println("answers/s by pool region: " + String.join(", ", parts));
    }
  }

  /** The service's answer counters per pool, from the node's metrics; null when unreadable. */
  private Sample sample(ApiClient api, String name) {
    long at = time().now();
    String text;
    try {
      text = api.getText("/metrics");
    } catch (CtlException e) {
      return new Sample(null, at);
    }
    return new Sample(answersByPool(text, name), at);
  }

  /**
   * {@code sluice_policy_answers_total{pool="p",service="s"} 12.0} lines of the Prometheus text,
   * summed per pool for {@code service}.
   */
  static Map<String, Double> answersByPool(String metrics, String service) {
    Map<String, Double> out = new HashMap<>();
    String prefix = "sluice_policy_answers_total{";
    for (String line : metrics.split("\n")) {
      if (!line.startsWith(prefix)) {
        continue;
      }
      int close = line.lastIndexOf('}');
      if (close < 0) {
        continue;
      }
      Map<String, String> labels = labels(line.substring(prefix.length(), close));
      if (!service.equals(labels.get("service")) || labels.get("pool") == null) {
        continue;
      }
      try {
        double v = Double.parseDouble(line.substring(close + 1).trim().split(" ")[0]);
        out.merge(labels.get("pool"), v, Double::sum);
      } catch (NumberFormatException e) {
        // not a sample line: skip it
      }
    }
    return out;
  }

  private static Map<String, String> labels(String text) {
    Map<String, String> out = new HashMap<>();
    int i = 0;
    while (i < text.length()) {
      int eq = text.indexOf("=\"", i);
      if (eq < 0) {
        break;
      }
      String key = text.substring(i, eq).replace(",", "").trim();
      StringBuilder v = new StringBuilder();
      int j = eq + 2;
      for (; j < text.length() && text.charAt(j) != '"'; j++) {
        char c = text.charAt(j);
        if (c == '\\' && j + 1 < text.length()) {
          c = text.charAt(++j);
          c = c == 'n' ? '\n' : c;
        }
        v.append(c);
      }
      out.put(key, v.toString());
      i = j + 1;
    }
    return out;
  }
}
