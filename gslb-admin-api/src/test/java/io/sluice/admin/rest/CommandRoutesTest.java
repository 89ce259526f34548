package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static io.sluice.admin.testing.AdminFixture.SERVICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.admin.testing.RecordingControlPlane.Call;
import io.sluice.core.control.CommandRejectedException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The change routes reach the control plane with the right arguments and report new versions. */
class CommandRoutesTest {
  private static final String S = "/api/v1/services/app.example.com";
  private AdminFixture f;

  @BeforeEach
  void start() throws Exception {
    f = new AdminFixture();
  }

  @AfterEach
  void stop() {
    f.close();
  }

  private JsonNode ok(String method, String path, String body) throws Exception {
    var r = f.send(method, path, OPERATOR, body);
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    JsonNode j = f.json(r);
    assertEquals(f.store.current().version(), j.get("snapshotVersion").asLong());
    return j;
  }

  @Test
  void setWeightsPassesWeightsRampReasonAndActor() throws Exception {
    JsonNode r =
        ok(
            "PUT",
            S + "/weights",
            "{\"weights\":{\"us-east-1\":9},\"ramp\":true,\"reason\":\"cap\"}");
    assertEquals(2, r.get("snapshotVersion").asLong());
    assertTrue(r.get("changed").asBoolean());
    Call c = f.control.lastCall();
    assertEquals("setWeights", c.command());
    assertEquals(SERVICE, c.service());
    assertEquals(Map.of("us-east-1", 9), c.args().get("weights"));
    assertEquals(true, c.args().get("ramp"));
    assertEquals("cap", c.args().get("reason"));
    assertEquals("otto", c.actor().name());
    assertEquals(9, f.store.current().traffic().plan(SERVICE).weights().get("us-east-1"));
  }

  @Test
  void moveAbortRollbackFreezeConfirmDrillAndDrainReachTheControlPlane() throws Exception {
    ok(
        "POST",
        S + "/move",
        "{\"from\":[\"eu-west-1\"],\"to\":[\"us-east-1\"],\"steps\":[1,5,100]}");
    assertEquals(List.of(1, 5, 100), f.control.lastCall().args().get("steps"));
    assertEquals(1.0, f.store.current().traffic().plan(SERVICE).shifts().get(0).percent());
    assertNull(f.control.lastCall().args().get("region"), "no region: every client");
    ok("POST", S + "/move/abort", null);
    assertEquals("abortMove", f.control.lastCall().command());
    ok(
        "POST",
        S + "/move",
        "{\"from\":[\"eu-west-1\"],\"to\":[\"us-east-1\"],\"region\":\"eu-west\"}");
    assertEquals("eu-west", f.control.lastCall().args().get("region"));
    assertEquals("eu-west", f.store.current().traffic().plan(SERVICE).shifts().get(0).region());
    ok("POST", S + "/rollback", "{\"reason\":\"bad switch\"}");
    assertEquals("rollback", f.control.lastCall().command());
    assertEquals(SERVICE, f.control.lastCall().service());
    assertTrue(f.store.current().traffic().plan(SERVICE).shifts().isEmpty());
    ok("POST", "/api/v1/rollback", "{}");
    assertNull(f.control.lastCall().service(), "rollback of every service");
    ok("POST", "/api/v1/freeze", "{}");
    assertTrue(f.store.current().traffic().frozen());
    ok("POST", "/api/v1/unfreeze", "{}");
    assertEquals(false, f.store.current().traffic().frozen());
    ok("POST", S + "/freeze", "{}");
    assertTrue(f.store.current().traffic().plan(SERVICE).frozen());
    ok("POST", S + "/unfreeze", "{}");
    assertEquals(false, f.store.current().traffic().plan(SERVICE).frozen());
    f.control.setPending(SERVICE, Map.of("step", 2));
    ok("POST", S + "/confirm", "{}");
    assertEquals("confirm", f.control.lastCall().command());
    f.control.setPending(SERVICE, Map.of("step", 3));
    ok("POST", S + "/reject", "{}");
    assertEquals("reject", f.control.lastCall().command());
    ok("POST", S + "/drill", "{\"to\":[\"us-east-1\"],\"percent\":12.5,\"seconds\":600}");
    assertEquals(12.5, f.control.lastCall().args().get("percent"));
    assertEquals(600L, f.control.lastCall().args().get("seconds"));
    ok("POST", S + "/drill/stop", "{}");
    assertEquals("stopDrill", f.control.lastCall().command());
    ok("POST", "/api/v1/pools/us-east-1/drain", "{}");
    ok("POST", "/api/v1/pools/eu-west-1/endpoints/lon-b/drain", "{}");
    assertEquals(Set.of("us-east-1", "eu-west-1/lon-b"), f.store.current().traffic().drained());
    ok("POST", "/api/v1/pools/us-east-1/undrain", "{}");
    ok("POST", "/api/v1/pools/eu-west-1/endpoints/lon-b/undrain", "{}");
    assertEquals(Set.of(), f.store.current().traffic().drained());
  }

  // Idempotency itself is the controller's: OperatorActionsEndToEndTest and TrafficControllerTest
  // repeat request ids against the real one. Here: the API hands the id over unchanged.
  @Test
  void theRequestIdReachesTheControlPlaneFromTheHeaderOrTheBody() throws Exception {
    Map<String, String> key = Map.of("Idempotency-Key", "incident-42.rollback");
    f.send("POST", "/api/v1/freeze", OPERATOR, "{}", key);
    assertEquals("incident-42.rollback", f.control.lastCall().requestId());
    ok("POST", "/api/v1/unfreeze", "{\"requestId\":\"abc-1\"}");
    assertEquals("abc-1", f.control.lastCall().requestId());
  }

  @Test
  void headerAndBodyRequestIdsMustAgreeAndBeWellFormed() throws Exception {
    var r =
        f.send(
            "POST",
            "/api/v1/freeze",
            OPERATOR,
            "{\"requestId\":\"a\"}",
            Map.of("Idempotency-Key", "b"));
    assertEquals(400, r.statusCode());
    assertEquals("requestId", f.json(r).get("field").asText());
    var bad = f.send("POST", "/api/v1/freeze", OPERATOR, "{\"requestId\":\"has space\"}");
    assertEquals("requestId", f.json(bad).get("field").asText());
    assertTrue(f.control.calls().isEmpty());
  }

  @Test
  void rejectionsBecome400WithTheFieldOr409OnConflict() throws Exception {
    f.control.failNext(
        CommandRejectedException.invalid("steps", "a ramp needs at least two steps"));
    var invalid = f.send("POST", S + "/rollback", OPERATOR, "{}");
    assertEquals(400, invalid.statusCode());
    JsonNode j = f.json(invalid);
    assertEquals("steps", j.get("field").asText());
    assertEquals("a ramp needs at least two steps", j.get("message").asText());
    var conflict = f.send("POST", S + "/confirm", OPERATOR, "{}");
    assertEquals(409, conflict.statusCode(), "nothing is pending");
    assertEquals("conflict", f.json(conflict).get("error").asText());
  }

  @Test
  void commandBodiesAreValidatedBeforeTheControlPlaneSeesThem() throws Exception {
    Map<String, String> cases =
        Map.of(
            "{\"weights\":{\"eu-west-1\":-1}}", "weights.eu-west-1",
            "{\"weights\":{\"mars-1\":1}}", "weights.mars-1",
            "{\"weights\":{}}", "weights",
            "{\"weights\":{\"eu-west-1\":\"ten\"}}", "weights.eu-west-1",
            "{\"weights\":{\"eu-west-1\":1},\"colour\":\"red\"}", "colour");
    for (var c : cases.entrySet()) {
      var r = f.send("PUT", S + "/weights", OPERATOR, c.getKey());
      assertEquals(400, r.statusCode(), c.getKey());
      assertEquals(c.getValue(), f.json(r).get("field").asText(), c.getKey() + " " + r.body());
    }
    Map<String, String> moves =
        Map.of(
            "{\"from\":[],\"to\":[\"us-east-1\"]}", "from",
            "{\"from\":[\"eu-west-1\"],\"to\":[\"x\"]}", "to[0]",
            "{\"from\":[\"eu-west-1\"],\"to\":[\"us-east-1\"],\"steps\":[5,5]}", "steps[1]",
            "{\"from\":[\"eu-west-1\"],\"to\":[\"eu-west-1\"]}", "to[0]",
            "{\"from\":[\"eu-west-1\"],\"to\":[\"us-east-1\"],\"region\":\"mars\"}", "region");
    for (var c : moves.entrySet()) {
      var r = f.send("POST", S + "/move", OPERATOR, c.getKey());
      assertEquals(c.getValue(), f.json(r).get("field").asText(), c.getKey());
    }
    Map<String, String> drills =
        Map.of(
            "{\"to\":[\"us-east-1\"],\"percent\":0,\"seconds\":60}", "percent",
            "{\"to\":[\"us-east-1\"],\"percent\":60,\"seconds\":60}", "percent",
            "{\"to\":[\"us-east-1\"],\"percent\":5,\"seconds\":0}", "seconds",
            "{\"percent\":5,\"seconds\":60}", "to");
    for (var c : drills.entrySet()) {
      var r = f.send("POST", S + "/drill", OPERATOR, c.getKey());
      assertEquals(c.getValue(), f.json(r).get("field").asText(), c.getKey());
    }
    var ep = f.send("POST", "/api/v1/pools/eu-west-1/endpoints/nope/drain", OPERATOR, "{}");
    assertEquals(404, ep.statusCode());
    assertEquals("endpoint", f.json(ep).get("field").asText());
    assertTrue(f.control.calls().isEmpty());
  }

  @Test
  void probeReportsAreDeliveredToTheSink() throws Exception {
    var impostor =
        f.post(
            "/api/v1/probe-reports",
            AdminFixture.PROBE,
            "{\"vantage\":\"tokyo\",\"timeMillis\":5,\"results\":[]}");
    assertEquals(403, impostor.statusCode(), "agent-1 may not report as tokyo");
    assertEquals("vantage", f.json(impostor).get("field").asText());
    var r =
        f.post(
            "/api/v1/probe-reports",
            AdminFixture.ADMIN,
            "{\"vantage\":\"tokyo\",\"timeMillis\":5,\"results\":[{\"endpoint\":\"us-east-1/iad-a\","
                + "\"check\":\"fullLink\",\"ok\":false,\"rttMillis\":0,\"error\":\"timeout\"}]}");
    assertEquals(202, r.statusCode(), r.body());
    assertEquals(1, f.json(r).get("accepted").asInt());
    assertEquals("tokyo", f.probeReports.get(0).vantage());
    assertEquals("timeout", f.probeReports.get(0).results().get(0).error());
    var bad =
        f.post(
            "/api/v1/probe-reports",
            AdminFixture.PROBE,
            "{\"vantage\":\"agent-1\",\"timeMillis\":5,\"results\":[{\"check\":\"heartbeat\",\"ok\":true,"
                + "\"rttMillis\":1,\"error\":null}]}");
    assertEquals("results[0].endpoint", f.json(bad).get("field").asText());
    assertEquals(1, f.probeReports.size());
  }
}
