package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.core.testing.ManualTicker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scoped and expiring admin tokens on a running node, over real HTTP: a team's token changes its
 * own service and the pools only its service uses, gets 403 naming its scope for anything else
 * (another service, a shared pool, a change of every service, a maintenance window outside it),
 * reads everything, and its changes are audited with the scope; a token past its {@code expires}
 * time (on the node's clock, which the test steps) gets 401 {@code token_expired}; a token written
 * the old way keeps working.
 */
class ScopedTokensTest {
  private static final String ADMIN = "admin-token-of-scoped-test";
  private static final String TEAM = "team-app-token-of-scoped-test";
  private static final String SOON = "token-expiring-in-an-hour";

  @TempDir Path dir;

  private static String config(Instant soon) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin:
          listen: 127.0.0.1
          port: 0
          tokens:
            - { name: ops, role: admin, sha256: %s }
            - { name: team-app, role: operator, sha256: %s, services: [app.example.test] }
            - { name: temp, role: operator, sha256: %s, expires: "%s" }
        stateDir: state
        pools:
          mine: { endpoints: [ { name: a, address: 192.0.2.11 } ] }
          shared: { endpoints: [ { name: a, address: 192.0.2.12 } ] }
          theirs: { endpoints: [ { name: a, address: 192.0.2.13 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
              - { name: app, pools: [{ pool: mine }, { pool: shared }], chain: [healthy] }
              - { name: api, pools: [{ pool: theirs }, { pool: shared }], chain: [healthy] }
        """
        .formatted(
            TokenAuthenticator.hash(ADMIN),
            TokenAuthenticator.hash(TEAM),
            TokenAuthenticator.hash(SOON),
            soon);
  }

  @Test
  void aScopedTokenChangesOnlyItsOwnServicesAndAnExpiredTokenIsRefused() throws Exception {
    ManualTicker clock = new ManualTicker(System.currentTimeMillis());
    Instant soon = Instant.ofEpochMilli(clock.currentTimeMillis()).plus(Duration.ofHours(1));
    try (LiveNode node = LiveNode.start(dir, config(soon), ADMIN, clock)) {
      LiveNode.Reply own =
          node.post("/api/v1/services/app.example.test/freeze", "{\"reason\":\"deploy\"}", TEAM);
      assertEquals(200, own.status(), own.body());
      LiveNode.Reply mine = node.post("/api/v1/pools/mine/drain", "{}", TEAM);
      assertEquals(200, mine.status(), "a pool only its service uses: " + mine.body());

      LiveNode.Reply other = node.post("/api/v1/services/api.example.test/freeze", "{}", TEAM);
      assertEquals(403, other.status(), other.body());
      assertEquals("out_of_scope", other.json().path("error").asText(), other.body());
      assertTrue(
          other.body().contains("limited to services [app.example.test.], pools []"), other.body());
      LiveNode.Reply shared = node.post("/api/v1/pools/shared/drain", "{}", TEAM);
      assertEquals(403, shared.status(), "a pool another service uses: " + shared.body());
      LiveNode.Reply global = node.post("/api/v1/freeze", "{}", TEAM);
      assertEquals(403, global.status(), global.body());
      LiveNode.Reply window =
          node.post(
              "/api/v1/maintenance",
              "{\"kind\":\"drain\",\"target\":\"shared/a\",\"duration\":\"1h\"}",
              TEAM);
      assertEquals(403, window.status(), window.body());
      LiveNode.Reply ownWindow =
          node.post(
              "/api/v1/maintenance",
              "{\"kind\":\"move\",\"target\":\"app.example.test\",\"from\":[\"mine\"],"
                  + "\"to\":[\"shared\"],\"duration\":\"1h\"}",
              TEAM);
      assertEquals(200, ownWindow.status(), ownWindow.body());
      assertEquals(200, node.get("/api/v1/status", TEAM).status(), "reads are not limited");

      JsonNode freeze = null;
      for (JsonNode e : node.get("/api/v1/audit?limit=100").json().path("events")) {
        if (e.path("action").asText().equals("freeze")) {
          freeze = e;
        }
      }
      assertEquals("team-app", freeze.path("actor").asText(), String.valueOf(freeze));
      assertEquals(
          List.of("app.example.test."),
          List.of(freeze.path("details").path("scope").path("services").path(0).asText()),
          String.valueOf(freeze));

      assertEquals(200, node.post("/api/v1/freeze", "{}", SOON).status(), "not expired yet");
      clock.advance(Duration.ofHours(1));
      LiveNode.Reply expired = node.post("/api/v1/unfreeze", "{}", SOON);
      assertEquals(401, expired.status(), expired.body());
      assertEquals("token_expired", expired.json().path("error").asText());
      assertTrue(expired.body().contains("token 'temp' expired at " + soon), expired.body());
      assertEquals(200, node.post("/api/v1/unfreeze", "{}", ADMIN).status(), "old-style token");
    }
  }
}
