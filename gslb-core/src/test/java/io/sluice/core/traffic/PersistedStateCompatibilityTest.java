package io.sluice.core.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The persisted traffic state of the previous release still loads; its wire names stay. */
class PersistedStateCompatibilityTest {
  /** A service with a paused move ramp and a pending step, as the first release wrote it. */
  static final String FIRST_RELEASE =
      """
      {"revision":7,"frozen":false,"drained":[],"requests":[],"counter":3,
       "services":{"app.example.com.":{
         "weights":{},"shifts":[],"frozen":false,"stableWeights":{},"stableShifts":[],
         "stableRevision":2,"drill":null,"cooldownUntilMillis":0,"shortTtlSince":1000,
         "shortTtlUntil":null,"notice":null,
         "pending":{"kind":"step","summary":"advance move to 30.0%","sinceMillis":5,
                    "expiresMillis":600005,"proposal":null},
         "ramp":{"id":"ramp-3","kind":"move","trigger":"maintenance",
           "shift":{"id":"move-3","from":["primary"],"to":["standby"],"percent":0.0,"region":null},
           "fromWeights":null,"toWeights":null,"startPercent":0.0,"endPercent":100.0,
           "steps":[10,30,100],"index":0,"lastGood":-1,"stepSinceMillis":5,"windowMillis":30000,
           "state":"paused","confirmEachStep":true,
           "record":{"id":"sw-3","service":"app.example.com.","trigger":"maintenance",
             "from":["primary"],"to":["standby"],"startedMillis":5,"endedMillis":null,
             "outcome":"running","steps":[],"details":{}}}}}}
      """;

  @Test
  void theFirstReleasesStateLoadsAndIsWrittenWithTheSameNames() throws Exception {
    ObjectMapper json = TrafficSystem.mapper();
    ControlState cs = json.readValue(FIRST_RELEASE, ControlState.class);
    ServiceControl sc = cs.service("app.example.com.");
    assertEquals(Ramp.Kind.MOVE, sc.ramp().kind());
    assertEquals(Ramp.State.PAUSED, sc.ramp().state());
    assertEquals(Pending.Kind.STEP, sc.pending().kind());
    assertFalse(sc.pending().heldByFreeze());

    JsonNode written = json.readTree(json.writeValueAsBytes(cs));
    JsonNode svc = written.path("services").path("app.example.com.");
    assertEquals("move", svc.path("ramp").path("kind").asText());
    assertEquals("paused", svc.path("ramp").path("state").asText());
    assertEquals("step", svc.path("pending").path("kind").asText());
    assertTrue(
        json.readValue(json.writeValueAsBytes(cs), ControlState.class).equals(cs),
        "a round trip keeps everything");
  }

  @Test
  void everyKindAndStateHasItsWireName() throws Exception {
    ObjectMapper json = TrafficSystem.mapper();
    assertEquals("\"awaiting-confirm\"", json.writeValueAsString(Ramp.State.AWAITING_CONFIRM));
    assertEquals("\"running\"", json.writeValueAsString(Ramp.State.RUNNING));
    assertEquals("\"weights\"", json.writeValueAsString(Ramp.Kind.WEIGHTS));
    assertEquals("\"failback\"", json.writeValueAsString(Ramp.Kind.FAILBACK));
    assertEquals("\"start\"", json.writeValueAsString(Pending.Kind.START));
    assertEquals("\"resume\"", json.writeValueAsString(Pending.Kind.RESUME));
    assertEquals(
        Ramp.State.AWAITING_CONFIRM, json.readValue("\"awaiting-confirm\"", Ramp.State.class));
  }
}
