package io.sluice.admin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The human times and the RAMP, DRILL and PENDING cells, on a fixed clock. */
class ShiftCellsTest {
  private static final Instant NOW = Instant.parse("2026-11-30T14:03:12Z");
  private static final long T = NOW.toEpochMilli();
  private final HumanTime time = new HumanTime(Clock.fixed(NOW, ZoneOffset.UTC));

  private static JsonNode json(String text) throws Exception {
    return Json.read(text);
  }

  @Test
  void timesReadAsPeopleSayThem() {
    assertEquals("now", time.relative(T + 300));
    assertEquals("in 40 s", time.relative(T + 40_000));
    assertEquals("3 min ago", time.ago(T - 180_000));
    assertEquals("2 min 5 s ago", time.ago(T - 125_000));
    assertEquals("in 2 h 5 min", time.relative(T + 7_500_000));
    assertEquals("3 d 4 h ago", time.ago(T - (3 * 86_400_000L + 4 * 3_600_000L)));
    assertEquals("14:00:12 (3 min ago)", time.when(T - 180_000));
    assertEquals(
        "2026-11-29 02:00:05", time.at(Instant.parse("2026-11-29T02:00:05Z").toEpochMilli()));
    // The clock's zone is the local one: the same instant in Paris.
    HumanTime paris = new HumanTime(Clock.fixed(NOW, ZoneId.of("Europe/Paris")));
    assertEquals("15:03:12", paris.at(T));
  }

  @Test
  void theRampCellSaysWhereTrafficGoesHowFarAndWhatComesNext() throws Exception {
    String running =
        """
        {"id":"ramp-3","kind":"move","state":"running","targets":["us-east-1"],
         "steps":[1,5,20,50,100],"step":2,"percent":20.0,"targetPercent":20.0,
         "stepSinceMillis":%d,"windowMillis":60000,"windowEndsMillis":%d}"""
            .formatted(T - 20_000, T + 40_000);
    assertEquals(
        "move-3 → us-east-1 20 % step 3/5, next in 40 s", ShiftCells.ramp(json(running), time));

    String due =
        running.replace(
            "\"windowEndsMillis\":" + (T + 40_000), "\"windowEndsMillis\":" + (T - 1000));
    assertEquals(
        "move-3 → us-east-1 20 % step 3/5, next step due", ShiftCells.ramp(json(due), time));

    String failback =
        """
        {"id":"ramp-7","kind":"failback","state":"running","targets":["eu-west-1"],
         "steps":[1,5,20,50,100],"step":4,"percent":0.0,"targetPercent":100.0,
         "windowEndsMillis":%d}"""
            .formatted(T + 90_000);
    assertEquals(
        "failback-7 → eu-west-1 100 % step 5/5, completes in 1 min 30 s",
        ShiftCells.ramp(json(failback), time));

    String paused = running.replace("\"running\"", "\"paused\"");
    assertEquals(
        "move-3 → us-east-1 20 % step 3/5, PAUSED by a gate", ShiftCells.ramp(json(paused), time));
    String confirm = running.replace("\"running\"", "\"awaiting-confirm\"");
    assertEquals(
        "move-3 → us-east-1 20 % step 3/5, waiting for confirm",
        ShiftCells.ramp(json(confirm), time));

    String regional =
        """
        {"id":"ramp-4","kind":"move","state":"running","targets":["us-east-1"],"region":"eu-west",
         "steps":[50,100],"step":-1}""";
    assertEquals(
        "move-4 → us-east-1 (eu-west clients) starting", ShiftCells.ramp(json(regional), time));
    assertEquals("-", ShiftCells.ramp(json("null"), time));
  }

  @Test
  void drillAndPendingCellsSayHowLongTheyHaveLeft() throws Exception {
    assertEquals(
        "→ us-east-1 12.5 %, ends in 4 min",
        ShiftCells.drill(
            json(
                "{\"to\":[\"us-east-1\"],\"percent\":12.5,\"endsMillis\":%d}"
                    .formatted(T + 240_000)),
            time));
    assertEquals(
        "start: fail over [eu-west-1] to [us-east-1] (waiting 3 min, expires in 7 min)",
        ShiftCells.pending(
            json(
                ("{\"kind\":\"start\",\"summary\":\"fail over [eu-west-1] to [us-east-1]\","
                        + "\"sinceMillis\":%d,\"expiresMillis\":%d}")
                    .formatted(T - 180_000, T + 420_000)),
            time));
    assertEquals("-", ShiftCells.pending(json("{}"), time));
  }

  @Test
  void auditRowsNameTheTargetOfDrainsAndVerdictChanges() throws Exception {
    JsonNode verdict =
        json(
            "{\"action\":\"verdict-change\",\"service\":null,"
                + "\"details\":{\"endpoint\":\"eu-west-1/lon-b\",\"pool\":\"eu-west-1\","
                + "\"from\":\"UP\",\"to\":\"DOWN\"}}");
    assertEquals("eu-west-1/lon-b", AuditCommand.target(verdict));
    assertEquals("verdict-change up → down", AuditCommand.action(verdict));
    JsonNode drain =
        json("{\"action\":\"drain\",\"service\":null,\"details\":{\"target\":\"eu-west-1\"}}");
    assertEquals("eu-west-1", AuditCommand.target(drain));
    assertEquals("drain", AuditCommand.action(drain));
    assertEquals(
        "app.example.com.",
        AuditCommand.target(json("{\"action\":\"rollback\",\"service\":\"app.example.com.\"}")));
    assertEquals(
        "all services", AuditCommand.target(json("{\"action\":\"freeze\",\"service\":null}")));
  }

  @Test
  void watchCountsTheServicesAnswersPerPoolFromTheMetrics() {
    String metrics =
        """
        # TYPE sluice_policy_answers_total counter
        sluice_policy_answers_total{pool="eu-west-1",service="app.example.com.",} 12.0
        sluice_policy_answers_total{service="app.example.com.",pool="us-east-1"} 3.0
        sluice_policy_answers_total{pool="eu-west-1",service="other.example.com.",} 99.0
        sluice_policy_answers_nearest_total{service="app.example.com.",} 15.0
        """;
    assertEquals(
        java.util.Map.of("eu-west-1", 12.0, "us-east-1", 3.0),
        WatchCommand.answersByPool(metrics, "app.example.com."));
  }
}
