package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.admin.cli.CtlMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin tokens follow the configuration file: on a running node, removing a token's line and
 * reloading revokes it at once, an added token works at once, and the reload result (API, {@code
 * sluice ctl reload} and the audit record) says which tokens and services changed.
 */
class TokenReloadTest {
  private static final String ADMIN = "admin-token-for-reload-test";
  private static final String VIEWER = "viewer-token-to-be-revoked";
  private static final String OPERATOR = "operator-token-added-later";

  @TempDir Path dir;

  private static String config(String tokens, String services) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin:
          listen: 127.0.0.1
          port: 0
          tokens:
        %s
        stateDir: state
        regions: { eu: {} }
        pools:
          p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
        %s
        """
        .formatted(tokens, services);
  }

  private static String token(String name, String role, String token) {
    return "    - { name: %s, role: %s, sha256: %s }"
        .formatted(name, role, TokenAuthenticator.hash(token));
  }

  private static String service(String name) {
    return "      - { name: %s, pools: [{ pool: p-eu }], chain: [healthy] }".formatted(name);
  }

  @Test
  void reloadRevokesRemovedTokensAndAcceptsAddedOnesAndSaysWhatChanged() throws Exception {
    String before =
        config(
            token("ops", "admin", ADMIN) + "\n" + token("grafana", "viewer", VIEWER),
            service("app"));
    try (LiveNode node = LiveNode.start(dir, before, ADMIN)) {
      assertEquals(200, node.get("/api/v1/status", VIEWER).status());
      assertEquals(401, node.get("/api/v1/status", OPERATOR).status());

      Files.writeString(
          node.configFile,
          config(
              token("ops", "admin", ADMIN) + "\n" + token("oncall", "operator", OPERATOR),
              service("app") + "\n" + service("api")));
      LiveNode.Reply reload = node.post("/api/v1/config/reload", "{}");
      assertEquals(200, reload.status(), reload.body());
      JsonNode tokens = reload.json().path("changes").path("tokens");
      assertEquals(List.of("oncall (operator)"), texts(tokens.path("added")), reload.body());
      assertEquals(List.of("grafana (viewer)"), texts(tokens.path("removed")), reload.body());
      assertEquals(
          List.of("api.example.test."),
          texts(reload.json().path("changes").path("services").path("added")),
          reload.body());
      assertTrue(
          reload.json().path("message").asText().contains("tokens removed: grafana (viewer)"),
          reload.body());

      // The very next request sees the new tokens.
      assertEquals(401, node.get("/api/v1/status", VIEWER).status());
      assertEquals(200, node.get("/api/v1/status", OPERATOR).status());
      assertEquals(200, node.get("/api/v1/status", ADMIN).status());

      LiveNode.Reply audit = node.get("/api/v1/audit");
      assertEquals(200, audit.status(), audit.body());
      assertTrue(audit.body().contains("\"config-reload\""), audit.body());
      assertTrue(audit.body().contains("tokens removed: grafana (viewer)"), audit.body());
      assertTrue(audit.body().contains("oncall (operator)"), audit.body());

      // ctl reload prints what changed: here, the operator token's role.
      Files.writeString(
          node.configFile,
          config(
              token("ops", "admin", ADMIN) + "\n" + token("oncall", "viewer", OPERATOR),
              service("app") + "\n" + service("api")));
      LiveNode.CtlRun ctl =
          LiveNode.ctl(
              Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", ADMIN),
              "reload",
              "--yes");
      assertEquals(CtlMain.OK, ctl.exit(), ctl.out() + ctl.err());
      assertTrue(ctl.out().contains("tokens changed: oncall (operator -> viewer)"), ctl.out());
      assertEquals(403, node.post("/api/v1/rollback", "{}", OPERATOR).status());
    }
  }

  @Test
  void aRefusedReloadListsEveryProblemOfTheFileAndKeepsTheTokens() throws Exception {
    String tokens = token("ops", "admin", ADMIN) + "\n" + token("grafana", "viewer", VIEWER);
    try (LiveNode node = LiveNode.start(dir, config(tokens, service("app")), ADMIN)) {
      Files.writeString(
          node.configFile,
          config(tokens, service("app"))
              .replace("port: 0\n  tokens", "port: 0\n  metricsPublic: sometimes\n  tokens")
              .replace(
                  "{ name: ns1, type: A, data: 192.0.2.53 }",
                  "{ name: ns1, type: A, ttl: x, data: 192.0.2.53 }")
              .replace("stateDir: state", "stateDir: state\nstateDir: other"));
      LiveNode.Reply reload = node.post("/api/v1/config/reload", "{}");
      assertEquals(400, reload.status(), reload.body());
      List<String> paths = new ArrayList<>();
      reload.json().path("problems").forEach(p -> paths.add(p.path("path").asText()));
      assertEquals(
          List.of("stateDir", "admin.metricsPublic", "zones[0].records[0].ttl"),
          paths,
          reload.body());
      assertEquals(200, node.get("/api/v1/status", VIEWER).status());
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
