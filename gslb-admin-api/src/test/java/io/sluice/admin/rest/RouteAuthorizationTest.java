package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.ADMIN;
import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static io.sluice.admin.testing.AdminFixture.PROBE;
import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.auth.Role;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.control.Actor;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.dnssec.DnssecKeyManager;
import io.sluice.core.dnssec.DnssecKeyManager.StepOutcome;
import io.sluice.core.dnssec.DnssecKeyManager.ZoneKeysView;
import io.sluice.core.dnssec.RolloverStep;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every route, called by every role: allowed exactly when the role permits it. */
class RouteAuthorizationTest {
  private static final String S = "/api/v1/services/app.example.com";
  // The SHA-256 of "hello", uploaded as a referenced file.
  private static final String HELLO_SHA =
      "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

  /** One call of each route with a valid body. */
  record Call(String method, String template, String path, String body, Role role) {}

  static final List<Call> CALLS =
      List.of(
          new Call("GET", "/healthz", "/healthz", null, null),
          new Call("GET", "/readyz", "/readyz", null, null),
          new Call("GET", "/metrics", "/metrics", null, Role.VIEWER),
          new Call("GET", "/api/v1/version", "/api/v1/version", null, Role.VIEWER),
          new Call("GET", "/api/v1/zones", "/api/v1/zones", null, Role.VIEWER),
          new Call("GET", "/api/v1/services", "/api/v1/services", null, Role.VIEWER),
          new Call("GET", "/api/v1/services/{service}", S, null, Role.VIEWER),
          new Call("GET", "/api/v1/pools", "/api/v1/pools", null, Role.VIEWER),
          new Call("GET", "/api/v1/pools/{pool}", "/api/v1/pools/eu-west-1", null, Role.VIEWER),
          new Call("GET", "/api/v1/topology", "/api/v1/topology", null, Role.VIEWER),
          new Call("GET", "/api/v1/status", "/api/v1/status", null, Role.VIEWER),
          new Call("GET", "/api/v1/pending", "/api/v1/pending", null, Role.VIEWER),
          new Call("GET", "/api/v1/cluster", "/api/v1/cluster", null, Role.VIEWER),
          new Call("GET", "/api/v1/probes", "/api/v1/probes", null, Role.VIEWER),
          new Call("GET", "/api/v1/audit", "/api/v1/audit", null, Role.VIEWER),
          new Call("GET", "/api/v1/switches", "/api/v1/switches", null, Role.VIEWER),
          new Call("GET", "/api/v1/switches/{id}", "/api/v1/switches/sw-1", null, Role.VIEWER),
          new Call(
              "GET",
              "/api/v1/explain",
              "/api/v1/explain?service=app.example.com&client=10.1.2.0/24",
              null,
              Role.VIEWER),
          new Call(
              "GET",
              "/api/v1/why",
              "/api/v1/why?service=app.example.com&client=10.1.2.0/24&at=2026-05-04T14:02:00Z",
              null,
              Role.VIEWER),
          new Call(
              "GET",
              "/api/v1/shadow/{service}",
              "/api/v1/shadow/app.example.com",
              null,
              Role.VIEWER),
          new Call(
              "PUT",
              "/api/v1/shadow/{service}",
              "/api/v1/shadow/app.example.com",
              "{\"chain\":[\"healthy\",\"weighted\"],\"sample\":0.5}",
              Role.OPERATOR),
          new Call(
              "DELETE",
              "/api/v1/shadow/{service}",
              "/api/v1/shadow/app.example.com",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/shadow/{service}/promote",
              "/api/v1/shadow/app.example.com/promote",
              "{}",
              Role.OPERATOR),
          new Call(
              "PUT",
              "/api/v1/services/{service}/weights",
              S + "/weights",
              "{\"weights\":{\"eu-west-1\":3}}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/services/{service}/move",
              S + "/move",
              "{\"from\":[\"eu-west-1\"],\"to\":[\"us-east-1\"],\"steps\":[5,50,100]}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/services/{service}/move/abort",
              S + "/move/abort",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST", "/api/v1/services/{service}/rollback", S + "/rollback", "{}", Role.OPERATOR),
          new Call(
              "PUT",
              "/api/v1/pools/{pool}/load",
              "/api/v1/pools/eu-west-1/load",
              "{\"load\":500}",
              Role.OPERATOR),
          new Call("POST", "/api/v1/rollback", "/api/v1/rollback", "{}", Role.OPERATOR),
          new Call("POST", "/api/v1/freeze", "/api/v1/freeze", "{}", Role.OPERATOR),
          new Call("POST", "/api/v1/unfreeze", "/api/v1/unfreeze", "{}", Role.OPERATOR),
          new Call("POST", "/api/v1/services/{service}/freeze", S + "/freeze", "{}", Role.OPERATOR),
          new Call(
              "POST", "/api/v1/services/{service}/unfreeze", S + "/unfreeze", "{}", Role.OPERATOR),
          new Call(
              "POST", "/api/v1/services/{service}/confirm", S + "/confirm", "{}", Role.OPERATOR),
          new Call("POST", "/api/v1/services/{service}/reject", S + "/reject", "{}", Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/services/{service}/drill",
              S + "/drill",
              "{\"to\":[\"us-east-1\"],\"percent\":10,\"seconds\":300}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/services/{service}/drill/stop",
              S + "/drill/stop",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/pools/{pool}/drain",
              "/api/v1/pools/us-east-1/drain",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/pools/{pool}/undrain",
              "/api/v1/pools/us-east-1/undrain",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/pools/{pool}/endpoints/{endpoint}/drain",
              "/api/v1/pools/eu-west-1/endpoints/lon-b/drain",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/pools/{pool}/endpoints/{endpoint}/undrain",
              "/api/v1/pools/eu-west-1/endpoints/lon-b/undrain",
              "{}",
              Role.OPERATOR),
          new Call("GET", "/api/v1/maintenance", "/api/v1/maintenance", null, Role.VIEWER),
          new Call(
              "PUT",
              "/api/v1/pools/{pool}/members/{name}",
              "/api/v1/pools/us-east-1/members/i-1",
              "{\"address\":\"192.0.2.99\"}",
              Role.OPERATOR),
          new Call(
              "DELETE",
              "/api/v1/pools/{pool}/members/{name}",
              "/api/v1/pools/us-east-1/members/i-1",
              "{}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/maintenance",
              "/api/v1/maintenance",
              "{\"kind\":\"drain\",\"target\":\"us-east-1\",\"duration\":\"1h\"}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/maintenance/{id}/cancel",
              "/api/v1/maintenance/mw-1/cancel",
              "{}",
              Role.OPERATOR),
          new Call("POST", "/api/v1/config/reload", "/api/v1/config/reload", "{}", Role.ADMIN),
          new Call("GET", "/api/v1/state/backup", "/api/v1/state/backup", null, Role.ADMIN),
          new Call(
              "POST", "/api/v1/dns/cookies/rotate", "/api/v1/dns/cookies/rotate", "{}", Role.ADMIN),
          new Call("GET", "/api/v1/config/versions", "/api/v1/config/versions", null, Role.VIEWER),
          new Call("GET", "/api/v1/keys", "/api/v1/keys", null, Role.VIEWER),
          new Call(
              "GET",
              "/api/v1/zones/{zone}/keys",
              "/api/v1/zones/example.com/keys",
              null,
              Role.VIEWER),
          new Call(
              "POST",
              "/api/v1/zones/{zone}/keys/rollover",
              "/api/v1/zones/example.com/keys/rollover",
              "{\"step\": \"zsk-publish\"}",
              Role.ADMIN),
          new Call(
              "GET",
              "/api/v1/config/versions/{version}",
              "/api/v1/config/versions/1",
              null,
              Role.VIEWER),
          new Call(
              "GET", "/api/v1/config/diff", "/api/v1/config/diff?from=1&to=1", null, Role.VIEWER),
          new Call(
              "GET",
              "/api/v1/config/blobs/{sha256}",
              "/api/v1/config/blobs/" + HELLO_SHA,
              null,
              Role.OPERATOR),
          new Call(
              "PUT",
              "/api/v1/config/blobs/{sha256}",
              "/api/v1/config/blobs/" + HELLO_SHA + "?offset=0&size=5",
              "hello",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/config/push",
              "/api/v1/config/push",
              "{\"yaml\":\"zones: []\",\"files\":{},\"reason\":\"test\"}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/config/rollback",
              "/api/v1/config/rollback",
              "{\"version\":1}",
              Role.OPERATOR),
          new Call(
              "POST",
              "/api/v1/probe-reports",
              "/api/v1/probe-reports",
              "{\"vantage\":\"agent-1\",\"timeMillis\":1,\"results\":[{\"endpoint\":\"eu-west-1/lon-a\","
                  + "\"check\":\"heartbeat\",\"ok\":true,\"rttMillis\":3.5,\"error\":null}]}",
              Role.PROBE));

  private static final Map<Role, String> TOKENS =
      Map.of(Role.VIEWER, VIEWER, Role.OPERATOR, OPERATOR, Role.ADMIN, ADMIN, Role.PROBE, PROBE);

  private AdminFixture f;

  @BeforeEach
  void start() throws Exception {
    // A generous failure budget: this test sends many refused requests on purpose.
    f = new AdminFixture("  authFailuresPerMinute: 1000");
    // As on a cluster node, so the allowed roles get the rotation's 200 (a single node: 409).
    f.server.withCookieRotation(
        () -> new io.sluice.core.spi.CookieSecretExchange.Secrets(new byte[16], new byte[16]));
    // A signed zone, so the allowed roles get its keys and a step's 200.
    ZoneKeysView zone =
        new ZoneKeysView("example.com.", List.of(), List.of(), List.of(), List.of());
    f.server.withDnssecKeys(
        new DnssecKeyManager() {
          @Override
          public List<ZoneKeysView> zones() {
            return List.of(zone);
          }

          @Override
          public Optional<ZoneKeysView> zone(String name) {
            return Optional.of(zone);
          }

          @Override
          public StepOutcome step(Actor actor, String name, RolloverStep step, String reason) {
            return new DnssecKeyManager.Done("done", zone);
          }
        });
    f.control.addSwitchRecord(
        new SwitchRecord(
            "sw-1",
            AdminFixture.SERVICE,
            "probe",
            List.of(),
            List.of(),
            1,
            null,
            "running",
            List.of(),
            Map.of()));
  }

  @AfterEach
  void stop() {
    f.close();
  }

  @Test
  void everyRegisteredRouteHasACase() {
    Set<String> server = new HashSet<>();
    f.server.routes().forEach(r -> server.add(r.method() + " " + r.template()));
    Set<String> cases = new HashSet<>();
    CALLS.forEach(c -> cases.add(c.method() + " " + c.template()));
    assertEquals(server, cases);
    for (Route r : f.server.routes()) {
      Call c =
          CALLS.stream()
              .filter(x -> x.method().equals(r.method()) && x.template().equals(r.template()))
              .findFirst()
              .orElseThrow();
      assertEquals(r.role(), c.role(), "role of " + c.template());
    }
  }

  @Test
  void eachRoleIsAllowedOrRefusedAsTheRoleTableSays() throws Exception {
    for (Call c : CALLS) {
      for (Role role : Role.values()) {
        f.control.setPending(AdminFixture.SERVICE, Map.of("step", 2));
        HttpResponse<String> r = f.send(c.method(), c.path(), TOKENS.get(role), c.body());
        String what = role + " " + c.method() + " " + c.path() + ": " + r.body();
        if (c.role() == null || role.permits(c.role())) {
          assertTrue(r.statusCode() == 200 || r.statusCode() == 202, what);
        } else {
          assertEquals(403, r.statusCode(), what);
          assertEquals("forbidden", f.json(r).get("error").asText(), what);
        }
      }
    }
  }

  @Test
  void everyProtectedRouteRefusesMissingAndWrongTokens() throws Exception {
    for (Call c : CALLS) {
      if (c.role() == null) {
        assertEquals(200, f.send(c.method(), c.path(), null, c.body()).statusCode(), c.path());
        continue;
      }
      HttpResponse<String> none = f.send(c.method(), c.path(), null, c.body());
      assertEquals(401, none.statusCode(), c.path());
      assertEquals("Bearer", none.headers().firstValue("WWW-Authenticate").orElse(""));
      HttpResponse<String> wrong = f.send(c.method(), c.path(), VIEWER + "x", c.body());
      assertEquals(401, wrong.statusCode(), c.path());
      assertFalse(wrong.body().contains(VIEWER), "a token never appears in a response");
    }
    assertTrue(f.control.calls().isEmpty(), "refused requests changed nothing");
  }
}
