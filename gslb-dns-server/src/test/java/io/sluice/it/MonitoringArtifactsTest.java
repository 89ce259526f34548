package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.cluster.testing.EtcdCluster;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * The alert rules ({@code deploy/prometheus}) and the dashboard ({@code deploy/grafana}) name only
 * metrics a running node exports: every metric name in their PromQL is looked up in a real scrape
 * of a real node (the {@code sluice_cluster_*} ones in a clustered node's, on a real etcd). Every
 * alert links to a runbook section that exists and has promtool tests that see it fire and not
 * fire.
 */
class MonitoringArtifactsTest {
  static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("..").normalize();
  static final Path RULES = ROOT.resolve("deploy/prometheus/sluice-alerts.yml");
  static final Path RULE_TESTS = ROOT.resolve("deploy/prometheus/sluice-alerts.test.yml");
  static final Path DASHBOARD = ROOT.resolve("deploy/grafana/sluice-dashboard.json");
  static final Path RUNBOOK = ROOT.resolve("docs/runbook.md");

  /** Pools, services and one endpoint checked on {@code %d}, the port of a real backend. */
  static final String BODY =
      """
      regions:
        eu-west: { location: { lat: 51.5, lon: -0.1 } }
        us-east: { location: { lat: 39.0, lon: -77.5 } }
      topology:
        defaultRegion: us-east
        networks:
          - { cidr: 10.1.0.0/16, region: eu-west }
      pools:
        p-eu:
          region: eu-west
          endpoints: [ { name: a, address: 127.0.0.1 } ]
          health:
            fullLink: { type: http, port: %d, path: /ready, interval: 1s }
        p-us:
          region: us-east
          endpoints: [ { name: a, address: 198.51.100.21 } ]
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - name: app
              pools: [{ pool: p-eu, weight: 1 }, { pool: p-us, weight: 1 }]
              chain: [healthy, geo]
              crossRegionLimit: 10
              traffic: { mode: manual }
      """;

  static final String SINGLE =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      """
          + BODY;

  /** A webhook (nothing listens there), so that its per-webhook series are exported too. */
  static final String A_WEBHOOK =
      """
      notifications:
        webhooks: [ { name: chat, url: "http://127.0.0.1:9/hook", format: slack } ]
      """;

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void everyMetricOfTheRulesAndTheDashboardIsExportedByANode() throws Exception {
    Set<String> named = new TreeSet<>();
    named.addAll(namesIn(ruleExpressions()));
    named.addAll(namesIn(dashboardExpressions()));
    // The parser must see names at all, or this test checks nothing.
    assertTrue(
        named.containsAll(
            Set.of(
                "sluice_dns_requests_total",
                "sluice_dns_request_duration_seconds_bucket",
                "sluice_health_verdict",
                "sluice_cluster_connected",
                "sluice_policy_answers_total",
                "sluice_pool_region")),
        named.toString());
    Set<String> exported;
    try (Backend backend = new Backend("127.0.0.1");
        LiveNode node = LiveNode.start(dir, (SINGLE + A_WEBHOOK).formatted(backend.port()))) {
      // A running node: one answered query, as any node in service has.
      assertEquals(Rcode.NOERROR, node.query("app.example.test.", Type.A, null, false).getRcode());
      exported = PrometheusSamples.parse(node.get("/metrics").body()).names();
    }
    List<String> missing = new ArrayList<>();
    for (String n : named) {
      if (!n.startsWith("sluice_cluster_") && !exported.contains(n)) {
        missing.add(n);
      }
    }
    assertEquals(List.of(), missing, "named by the rules or the dashboard, not exported");
  }

  @Test
  void theClusterMetricsOfTheRulesAreExportedByAClusterNode() throws Exception {
    Set<String> named = new TreeSet<>();
    for (String n : namesIn(ruleExpressions())) {
      if (n.startsWith("sluice_cluster_")) {
        named.add(n);
      }
    }
    for (String n : namesIn(dashboardExpressions())) {
      if (n.startsWith("sluice_cluster_")) {
        named.add(n);
      }
    }
    assertFalse(named.isEmpty());
    try (Backend backend = new Backend("127.0.0.1");
        EtcdCluster etcd = EtcdCluster.start(1);
        SluiceCluster cluster =
            SluiceCluster.start(dir, etcd.endpoints(), 1, BODY.formatted(backend.port()))) {
      Set<String> exported =
          PrometheusSamples.parse(cluster.node(0).get("/metrics").body()).names();
      List<String> missing = named.stream().filter(n -> !exported.contains(n)).toList();
      assertEquals(List.of(), missing, "named by the rules, not exported by a cluster node");
    }
  }

  @Test
  void everyAlertLinksToARunbookSectionAndHasFiringAndQuietTests() throws Exception {
    Set<String> anchors = new TreeSet<>();
    for (String line : Files.readAllLines(RUNBOOK)) {
      if (line.startsWith("#")) {
        anchors.add(anchor(line.replaceFirst("^#+\\s*", "")));
      }
    }
    Set<String> firing = new TreeSet<>();
    Set<String> quiet = new TreeSet<>();
    for (JsonNode test : YAML.readTree(RULE_TESTS.toFile()).path("tests")) {
      for (JsonNode t : test.path("alert_rule_test")) {
        (t.path("exp_alerts").isEmpty() ? quiet : firing).add(t.path("alertname").asText());
      }
    }
    List<String> alerts = new ArrayList<>();
    for (JsonNode group : YAML.readTree(RULES.toFile()).path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        String alert = rule.path("alert").asText();
        alerts.add(alert);
        String url = rule.path("annotations").path("runbook_url").asText();
        assertTrue(url.startsWith("docs/runbook.md#"), alert + ": runbook_url " + url);
        String a = url.substring(url.indexOf('#') + 1);
        assertTrue(anchors.contains(a), alert + ": no section #" + a + " in docs/runbook.md");
        assertTrue(firing.contains(alert), alert + " has no test that sees it fire");
        assertTrue(quiet.contains(alert), alert + " has no test that sees it quiet");
      }
    }
    assertTrue(alerts.size() >= 10, alerts.toString());
  }

  @Test
  void theDashboardQueriesAreValidPromQl() throws Exception {
    String promtool = promtool();
    // As recording rules, with Grafana's variables set as Grafana sets them, promtool parses them.
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    int i = 0;
    for (String e : dashboardExpressions()) {
      String expr = e.replace("$__rate_interval", "5m").replace("$instance", ".*");
      rules
          .append("      - record: dashboard_query_")
          .append(++i)
          .append("\n        expr: ")
          .append(JSON.writeValueAsString(expr))
          .append('\n');
    }
    Path file = dir.resolve("dashboard-rules.yml");
    Files.writeString(file, rules);
    Process p =
        new ProcessBuilder(promtool, "check", "rules", file.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    assertTrue(out.contains("SUCCESS: " + i + " rules found"), out);
  }

  /** Skips (or, under CI=true, fails) when promtool (Debian: prometheus) is not installed. */
  static String promtool() {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      Path candidate = Path.of(d, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    String missing = "promtool is not installed (Debian: prometheus)";
    if ("true".equals(System.getenv("CI"))) {
      fail(missing + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.assumeTrue(false, missing);
    return null;
  }

  /** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to dashes. */
  static String anchor(String heading) {
    return heading.toLowerCase().replaceAll("[^a-z0-9 _-]", "").trim().replace(' ', '-');
  }

  static List<String> ruleExpressions() throws Exception {
    List<String> out = new ArrayList<>();
    for (JsonNode group : YAML.readTree(RULES.toFile()).path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        out.add(rule.path("expr").asText());
      }
    }
    return out;
  }

  static List<String> dashboardExpressions() throws Exception {
    List<String> out = new ArrayList<>();
    collectExpressions(JSON.readTree(DASHBOARD.toFile()), out);
    assertFalse(out.isEmpty(), "no expr in the dashboard");
    return out;
  }

  private static void collectExpressions(JsonNode node, List<String> out) {
    if (node.isObject()) {
      JsonNode expr = node.get("expr");
      if (expr != null && expr.isTextual()) {
        out.add(expr.asText());
      }
      node.elements().forEachRemaining(n -> collectExpressions(n, out));
    } else if (node.isArray()) {
      node.forEach(n -> collectExpressions(n, out));
    }
  }

  private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)\\b(?!\\s*\\()");
  private static final Set<String> KEYWORDS =
      Set.of(
          "and",
          "or",
          "unless",
          "bool",
          "offset",
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "inf",
          "nan");

  /**
   * The metric names in PromQL expressions: what is left once strings, label matchers, ranges,
   * grouping label lists, Grafana variables, functions and keywords are taken out.
   */
  static Set<String> namesIn(List<String> expressions) {
    Set<String> out = new TreeSet<>();
    for (String e : expressions) {
      String s = STRING.matcher(e).replaceAll("\"\"");
      s = s.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^]]*]", " ");
      s = GROUPING.matcher(s).replaceAll(" ");
      s = s.replaceAll("\\$\\w+", " ");
      Matcher m = IDENTIFIER.matcher(s);
      while (m.find()) {
        String name = m.group(1);
        if (!KEYWORDS.contains(name.toLowerCase())) {
          out.add(name);
        }
      }
    }
    return out;
  }

  @Test
  void theNameParserFindsMetricsAndOnlyMetrics() {
    assertEquals(
        Set.of("a_total", "b_bucket", "c"),
        namesIn(
            List.of(
                "sum by (service, le) (rate(a_total{x=\"y{z}\"}[5m])) / on (pool) group_left"
                    + " (region) histogram_quantile(0.99, b_bucket[$__rate_interval]) > bool 1e3"
                    + " or c offset 5m")));
  }
}
