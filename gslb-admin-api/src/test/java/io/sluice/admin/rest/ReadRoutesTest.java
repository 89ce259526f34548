package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.SwitchRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the read routes answer, checked against the fixture's snapshot and control plane. */
class ReadRoutesTest {
  private AdminFixture f;

  @BeforeEach
  void start() throws Exception {
    f = new AdminFixture();
  }

  @AfterEach
  void stop() {
    f.close();
  }

  private JsonNode get(String path) throws Exception {
    var r = f.get(path, VIEWER);
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
    return f.json(r);
  }

  @Test
  void versionsFollowTheSnapshot() throws Exception {
    JsonNode v = get("/api/v1/version");
    assertEquals(1, v.get("snapshotVersion").asLong());
    assertEquals(1, v.get("configVersion").asLong());
    assertEquals(7, v.get("healthVersion").asLong());
    f.store.update(s -> s.withTraffic(s.traffic().withFrozen(true)));
    assertEquals(2, get("/api/v1/version").get("snapshotVersion").asLong());
  }

  @Test
  void zonesAndServicesListTheConfiguration() throws Exception {
    JsonNode zones = get("/api/v1/zones").get("zones");
    assertEquals("example.com.", zones.get(0).get("origin").asText());
    assertEquals("app.example.com.", zones.get(0).get("services").get(0).asText());
    JsonNode svc = get("/api/v1/services").get("services").get(0);
    assertEquals("app.example.com.", svc.get("name").asText());
    assertEquals(60, svc.get("ttl").asLong());
    assertEquals("eu-west-1", svc.get("pools").get(0).get("pool").asText());
  }

  @Test
  void oneServiceShowsItsPlanAndStatusAndAcceptsTheNameWithoutTheFinalDot() throws Exception {
    f.store.update(
        s ->
            s.withTraffic(
                s.traffic()
                    .withPlan(
                        AdminFixture.SERVICE,
                        s.traffic()
                            .plan(AdminFixture.SERVICE)
                            .withWeights(Map.of("us-east-1", 3)))));
    JsonNode svc = get("/api/v1/services/APP.example.com");
    assertEquals(3, svc.get("pools").get(1).get("weight").asInt());
    assertEquals(1, svc.get("pools").get(1).get("configuredWeight").asInt());
    assertEquals(75.0, svc.get("status").get("shares").get("us-east-1").asDouble(), 1e-9);
    assertEquals("auto", svc.get("mode").asText(), "the configuration's spelling");
    assertEquals("auto", svc.get("status").get("mode").asText());
    var missing = f.get("/api/v1/services/nope.example.com", VIEWER);
    assertEquals(404, missing.statusCode());
    assertEquals("service", f.json(missing).get("field").asText());
  }

  @Test
  void poolsShowVerdictsEvidenceAndLatency() throws Exception {
    JsonNode eu = get("/api/v1/pools/eu-west-1");
    JsonNode lonA = eu.get("endpoints").get(0);
    assertEquals("eu-west-1/lon-a", lonA.get("key").asText());
    assertEquals("up", lonA.get("verdict").asText());
    assertEquals(9.0, lonA.get("rttP99Millis").asDouble());
    JsonNode lonB = eu.get("endpoints").get(1);
    assertEquals("down", lonB.get("verdict").asText());
    assertEquals("connect refused", lonB.get("reason").asText());
    assertTrue(lonB.get("rttP50Millis").isNull(), "unknown latency is null, not NaN");
    assertEquals(2, get("/api/v1/pools").get("pools").size());
    assertEquals(404, f.get("/api/v1/pools/nowhere", VIEWER).statusCode());
  }

  @Test
  void statusAndPendingComeFromTheControlPlane() throws Exception {
    f.control.setPending(AdminFixture.SERVICE, Map.of("step", 3, "percent", 20));
    JsonNode st = get("/api/v1/status");
    assertEquals(false, st.get("frozen").asBoolean());
    assertEquals("app.example.com.", st.get("services").get(0).get("service").asText());
    assertEquals("auto", st.get("services").get(0).get("mode").asText());
    assertEquals(2, st.get("pools").size());
    JsonNode p = get("/api/v1/pending").get("pending");
    assertEquals(1, p.size());
    assertEquals(20, p.get(0).get("pending").get("percent").asInt());
  }

  @Test
  void topologyListsRegionsAndNetworks() throws Exception {
    JsonNode t = get("/api/v1/topology");
    assertEquals("us-east", t.get("defaultRegion").asText());
    assertEquals("10.1.0.0/16", t.get("networks").get(0).get("cidr").asText());
  }

  @Test
  void auditFiltersByServiceActorAndTimeAndPages() throws Exception {
    for (int i = 0; i < 5; i++) {
      f.control.addAudit(
          new AuditEvent(
              i + 1,
              1000L * (i + 1),
              i % 2 == 0 ? "otto" : "controller",
              "operator",
              "setWeights",
              i < 4 ? AdminFixture.SERVICE : null,
              "r" + i,
              i,
              i + 1,
              Map.of()));
    }
    JsonNode all = get("/api/v1/audit?limit=2");
    assertEquals(2, all.get("events").size());
    assertEquals(5, all.get("events").get(0).get("seq").asLong(), "newest first");
    assertEquals(2, all.get("nextOffset").asInt());
    JsonNode page2 = get("/api/v1/audit?limit=2&offset=2");
    assertEquals(3, page2.get("events").get(0).get("seq").asLong());
    JsonNode otto = get("/api/v1/audit?actor=otto&service=app.example.com");
    assertEquals(2, otto.get("events").size());
    assertEquals(
        0,
        get("/api/v1/audit?service=removed.example.com").get("events").size(),
        "a service no longer configured can still be searched for");
    JsonNode window = get("/api/v1/audit?from=2000&to=3000");
    assertEquals(2, window.get("events").size());
    assertTrue(window.get("nextOffset").isNull());
    var bad = f.get("/api/v1/audit?limit=5000", VIEWER);
    assertEquals(400, bad.statusCode());
    assertEquals("limit", f.json(bad).get("field").asText());
    var inverted = f.get("/api/v1/audit?from=5&to=1", VIEWER);
    assertEquals("from", f.json(inverted).get("field").asText());
  }

  @Test
  void switchRecordsAreListedAndShown() throws Exception {
    f.control.addSwitchRecord(
        new SwitchRecord(
            "sw-9",
            AdminFixture.SERVICE,
            "operator",
            List.of("eu-west-1"),
            List.of("us-east-1"),
            5000,
            9000L,
            "rolled-back",
            List.of(Map.of("percent", 5, "atMillis", 5000)),
            Map.of("rollbackMillis", 800)));
    assertEquals(
        "sw-9",
        get("/api/v1/switches?service=app.example.com.").get("switches").get(0).get("id").asText());
    JsonNode one = get("/api/v1/switches/sw-9");
    assertEquals("rolled-back", one.get("outcome").asText());
    assertEquals(404, f.get("/api/v1/switches/sw-404", VIEWER).statusCode());
  }

  @Test
  void explainTakesAnAddressOrASubnet() throws Exception {
    JsonNode e = get("/api/v1/explain?service=app.example.com&client=10.1.7.0/24");
    assertEquals("eu-west", e.get("region").asText());
    assertEquals("geo", e.get("steps").get(1).get("name").asText());
    assertEquals("192.0.2.11", e.get("decision").get("addresses").get(0).asText());
    assertEquals(List.of("eu-west-1"), List.of(e.get("decision").get("pools").get(0).asText()));
    JsonNode single = get("/api/v1/explain?service=app.example.com&client=10.2.0.9&type=AAAA");
    assertEquals("us-east-1", single.get("decision").get("pools").get(0).asText());
    assertEquals("AAAA", single.get("type").asText());
    for (String bad : List.of("client=nope", "client=10.0.0.0/33", "client=10.0.0.0&type=MX")) {
      var r = f.get("/api/v1/explain?service=app.example.com&" + bad, VIEWER);
      assertEquals(400, r.statusCode(), bad);
    }
    var missing = f.get("/api/v1/explain?service=app.example.com", VIEWER);
    assertEquals("client", f.json(missing).get("field").asText());
  }

  @Test
  void readinessFollowsTheFlagAndNeedsNoToken() throws Exception {
    assertEquals(200, f.get("/readyz", null).statusCode());
    f.server.ready(false);
    var r = f.get("/readyz", null);
    assertEquals(503, r.statusCode());
    assertEquals("starting", f.json(r).get("status").asText());
    assertEquals(200, f.get("/healthz", null).statusCode());
  }

  @Test
  void auditEventsRecordTheAuthenticatedActor() throws Exception {
    f.post("/api/v1/freeze", AdminFixture.OPERATOR, "{\"reason\":\"incident 42\"}");
    JsonNode ev = get("/api/v1/audit").get("events").get(0);
    assertEquals("otto", ev.get("actor").asText());
    assertEquals("operator", ev.get("role").asText());
    assertEquals(new Actor("otto", "operator"), f.control.lastCall().actor());
  }
}
