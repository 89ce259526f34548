package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.admin.cli.CtlMain;
import io.sluice.core.config.history.ConfigVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration history of a single node over real files, the admin API and {@code sluice ctl
 * config}: a bad push is refused with every problem, a good one changes the answers, the history
 * says who applied what, diff shows the change, rollback restores the answers and the master file
 * that ran, a restart keeps history and the restored version, and a reload (the SIGHUP path) of an
 * unchanged file leaves a rollback in place while an edited file supersedes it.
 */
class ConfigHistoryTest {
  @TempDir Path dir;
  @TempDir Path elsewhere;

  private static String yaml(String services) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        regions: { eu: {} }
        pools:
          p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        zones:
          - origin: example.test.
            file: static.zone
            services:
        %s
        """
        .formatted(services);
  }

  private static String zone(String www) {
    return """
        $TTL 300
        @   IN SOA ns1.example.test. h.example.test. 1 7200 1800 1209600 60
        @   IN NS  ns1.example.test.
        ns1 IN A   192.0.2.53
        www IN A   %s
        """
        .formatted(www);
  }

  private static final String APP =
      "      - { name: app, pools: [{ pool: p-eu }], chain: [healthy] }";
  private static final String API =
      "      - { name: api, pools: [{ pool: p-eu }], chain: [healthy] }";

  private static String www(LiveNode node) throws Exception {
    return String.join(",", LiveNode.addresses(node.query("www.example.test.", null)));
  }

  private static Map<String, String> env(LiveNode node) {
    return Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", node.token);
  }

  private static List<String> paths(JsonNode problems) {
    List<String> out = new ArrayList<>();
    problems.forEach(p -> out.add(p.path("path").asText()));
    return out;
  }

  @Test
  void pushHistoryDiffRollbackRestartAndReloadAfterRollback() throws Exception {
    Files.writeString(dir.resolve("static.zone"), zone("192.0.2.1"));
    try (LiveNode node = LiveNode.start(dir, yaml(APP))) {
      assertEquals("192.0.2.1", www(node));

      // A bad file: every problem at once, nothing applied, nothing recorded.
      Path bad = elsewhere.resolve("bad.yaml");
      Files.writeString(
          bad,
          yaml(APP)
              .replace("threads: 1", "threads: many")
              .replace("file: static.zone", "file: missing.zone")
              .replace("chain: [healthy]", "chain: [healthy, nonsense]"));
      LiveNode.CtlRun refused = LiveNode.ctl(env(node), "config", "push", bad.toString());
      assertEquals(CtlMain.FAILED, refused.exit(), refused.out() + refused.err());
      assertTrue(refused.err().contains("dns.threads"), refused.err());
      assertTrue(refused.err().contains("zones[0].file"), refused.err());
      assertTrue(refused.err().contains("'missing.zone' was not uploaded"), refused.err());
      LiveNode.Reply raw =
          node.post(
              "/api/v1/config/push",
              LiveNode.JSON
                  .createObjectNode()
                  .put("yaml", Files.readString(bad))
                  .put("reason", "bad")
                  .toString());
      assertEquals(400, raw.status(), raw.body());
      List<String> problems = paths(raw.json().path("problems"));
      assertTrue(problems.contains("dns.threads"), raw.body());
      assertTrue(problems.contains("zones[0].file"), raw.body());
      assertTrue(problems.size() >= 3, raw.body());
      // Not the zone's SOA as well: it would come from the file that is missing.
      assertTrue(!problems.contains("zones[0].soa"), raw.body());
      assertEquals("192.0.2.1", www(node));

      // A good file from another directory, with its own master file.
      Files.writeString(elsewhere.resolve("static.zone"), zone("192.0.2.2"));
      Path good = elsewhere.resolve("sluice.yaml");
      Files.writeString(good, yaml(APP + "\n" + API));
      LiveNode.CtlRun pushed =
          LiveNode.ctl(env(node), "config", "push", good.toString(), "--reason", "add api");
      assertEquals(CtlMain.OK, pushed.exit(), pushed.out() + pushed.err());
      assertTrue(pushed.out().contains("version 2"), pushed.out());
      assertEquals("192.0.2.2", www(node));
      assertEquals(1, node.query("api.example.test.", null).getSection(1).size());

      // The pushed master file changes on disk: what ran is kept, and a rollback restores it.
      Files.writeString(elsewhere.resolve("static.zone"), zone("192.0.2.3"));
      LiveNode.CtlRun edited = LiveNode.ctl(env(node), "config", "push", good.toString());
      assertEquals(CtlMain.OK, edited.exit(), edited.err());
      // Only the master file changed: the zone counts as changed all the same.
      assertTrue(edited.out().contains("zones changed: example.test."), edited.out());
      assertEquals("192.0.2.3", www(node));

      JsonNode history = node.get("/api/v1/config/versions").json();
      assertEquals(3, history.path("current").asLong(), history.toString());
      JsonNode v2 = history.path("versions").get(1);
      assertEquals(2, v2.path("version").asLong());
      assertEquals("push", v2.path("source").asText());
      assertEquals("add api", v2.path("reason").asText());
      assertFalse(v2.path("actor").asText().isEmpty(), v2.toString());
      assertFalse(v2.path("time").asText().isEmpty(), v2.toString());
      assertEquals("start", history.path("versions").get(2).path("source").asText());
      LiveNode.CtlRun listed = LiveNode.ctl(env(node), "config", "history");
      assertEquals(CtlMain.OK, listed.exit(), listed.err());
      assertTrue(listed.out().contains("add api"), listed.out());
      assertTrue(listed.out().contains("3 *"), listed.out());

      LiveNode.CtlRun show = LiveNode.ctl(env(node), "config", "show", "2");
      assertEquals(CtlMain.OK, show.exit(), show.err());
      assertTrue(show.out().startsWith(Files.readString(good)), show.out());
      assertTrue(show.out().contains("# file static.zone: sha256 "), show.out());

      LiveNode.CtlRun diff = LiveNode.ctl(env(node), "config", "diff", "1", "2");
      assertEquals(CtlMain.OK, diff.exit(), diff.err());
      assertTrue(diff.out().contains("--- version 1"), diff.out());
      assertTrue(diff.out().contains("+      - { name: api"), diff.out());
      LiveNode.CtlRun latest = LiveNode.ctl(env(node), "config", "diff");
      assertTrue(latest.out().contains("file static.zone: "), latest.out());

      LiveNode.CtlRun rolledBack =
          LiveNode.ctl(env(node), "config", "rollback", "2", "--reason", "www moved too early");
      assertEquals(CtlMain.OK, rolledBack.exit(), rolledBack.out() + rolledBack.err());
      assertTrue(rolledBack.out().contains("version 4"), rolledBack.out());
      assertEquals("192.0.2.2", www(node));
      JsonNode audit = node.get("/api/v1/audit").json();
      assertTrue(audit.toString().contains("\"config-rollback\""), audit.toString());
      assertTrue(audit.toString().contains("\"config-push\""), audit.toString());

      // SIGHUP path, file unchanged since it was read: the rollback stays.
      LiveNode.Reply kept = node.post("/api/v1/config/reload", "{}");
      assertEquals(200, kept.status(), kept.body());
      assertFalse(kept.json().path("changed").asBoolean(), kept.body());
      assertTrue(kept.json().path("message").asText().contains("unchanged"), kept.body());
      assertEquals("192.0.2.2", www(node));
    }

    // A restart keeps the history and the restored version; numbers go on.
    try (LiveNode node = LiveNode.start(dir, yaml(APP))) {
      assertEquals("192.0.2.2", www(node));
      JsonNode history = node.get("/api/v1/config/versions").json();
      assertEquals(4, history.path("current").asLong(), history.toString());
      assertEquals(4, history.path("versions").size());

      // The file edited on disk: a reload applies it as a new version over the rollback.
      Files.writeString(dir.resolve("static.zone"), zone("192.0.2.5"));
      LiveNode.Reply reload = node.post("/api/v1/config/reload", "{}");
      assertEquals(200, reload.status(), reload.body());
      assertTrue(reload.json().path("changed").asBoolean(), reload.body());
      assertEquals(5, reload.json().path("version").asLong(), reload.body());
      assertEquals("192.0.2.5", www(node));

      // A problem in the file's records names the file as the YAML writes it, not its copy.
      Files.writeString(
          dir.resolve("static.zone"), zone("192.0.2.6") + "sub IN NS ns1.sub.example.test.\n");
      LiveNode.Reply bad = node.post("/api/v1/config/reload", "{}");
      assertTrue(bad.status() >= 400, bad.body());
      assertTrue(bad.body().contains("static.zone (sub.example.test. NS)"), bad.body());
      assertFalse(bad.body().contains("blobs"), bad.body());
      assertEquals("192.0.2.5", www(node));
    }
  }

  /** A push body naming {@code file}, whose content the node already holds. */
  private static String pushBody(String yaml, String file, String content) {
    var body = LiveNode.JSON.createObjectNode().put("yaml", yaml).put("reason", "r");
    body.putObject("files")
        .put(file, ConfigVersion.sha256(content.getBytes(StandardCharsets.UTF_8)));
    return body.toString();
  }

  @Test
  void anOperatorMayPushButNotChangeTheAdminTokens() throws Exception {
    String admin = "admin-token-of-config-history-test";
    String operator = "operator-token-of-config-history-test";
    String tokens =
        "  tokens:\n"
            + "    - { name: ops, role: admin, sha256: %s }\n"
                .formatted(TokenAuthenticator.hash(admin))
            + "    - { name: oncall, role: operator, sha256: %s }\n"
                .formatted(TokenAuthenticator.hash(operator));
    Files.writeString(dir.resolve("static.zone"), zone("192.0.2.1"));
    String base =
        yaml(APP)
            .replace(
                "admin: { listen: 127.0.0.1, port: 0 }",
                "admin:\n  listen: 127.0.0.1\n  port: 0\n" + tokens);
    try (LiveNode node = LiveNode.start(dir, base, admin)) {
      String grant =
          base.replace(
              tokens,
              tokens
                  + "    - { name: me-too, role: admin, sha256: %s }\n"
                      .formatted(TokenAuthenticator.hash("x".repeat(40))));
      LiveNode.Reply refused =
          node.post(
              "/api/v1/config/push", pushBody(grant, "static.zone", zone("192.0.2.1")), operator);
      assertEquals(403, refused.status(), refused.body());
      assertTrue(refused.body().contains("admin token"), refused.body());

      Files.writeString(elsewhere.resolve("static.zone"), zone("192.0.2.1"));
      Path more = elsewhere.resolve("sluice.yaml");
      Files.writeString(more, base.replace(APP, APP + "\n" + API));
      LiveNode.CtlRun pushed =
          LiveNode.ctl(
              Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", operator),
              "config",
              "push",
              more.toString());
      assertEquals(CtlMain.OK, pushed.exit(), pushed.out() + pushed.err());
      assertEquals(1, node.query("api.example.test.", null).getSection(1).size());

      // A file larger than one request body is uploaded in parts like a master file.
      Files.writeString(more, base + "# padding to pass the body limit\n".repeat(3000));
      LiveNode.CtlRun large =
          LiveNode.ctl(
              Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", operator),
              "config",
              "push",
              more.toString());
      assertEquals(CtlMain.OK, large.exit(), large.out() + large.err());
      JsonNode latest = node.get("/api/v1/config/versions/3").json();
      assertEquals(Files.readString(more), latest.path("yaml").asText());
      assertTrue(node.query("api.example.test.", null).getSection(1).isEmpty());
    }
  }
}
