package io.sluice.core.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.NotificationsConfig.Format;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.SwitchRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The three body formats and the signature header, from one audited failover start. */
class WebhookBodiesTest {
  private static final ObjectMapper JSON = ConfigLoader.jsonMapper();

  private static WebhookEvent failoverStart() {
    AuditEvent a =
        new AuditEvent(
            17,
            1_800_000_000_000L,
            "controller",
            "system",
            "failover-start",
            "app.example.com.",
            "every endpoint of primary is down",
            40,
            41,
            Map.of("revision", 9));
    SwitchRecord r =
        new SwitchRecord(
            "switch-3",
            "app.example.com.",
            "failover",
            List.of("primary"),
            List.of("standby"),
            1_800_000_000_000L,
            null,
            "running",
            List.of(Map.of("event", "start", "percent", 10.0, "atMillis", 1_800_000_000_000L)),
            Map.of());
    return WebhookEvent.of(a, List.of(r), "sluice-prod", "ns1");
  }

  @Test
  void theJsonBodyIsTheEventWithItsSwitchRecord() throws Exception {
    JsonNode b = JSON.readTree(WebhookBodies.body(JSON, failoverStart(), Format.JSON, null));
    assertEquals("sluice-prod/state-9", b.get("id").asText());
    assertEquals("failover-start", b.get("type").asText());
    assertEquals("2027-01-15T08:00:00Z", b.get("time").asText());
    assertEquals("ns1", b.get("node").asText());
    assertEquals(9, b.get("revision").asLong());
    assertEquals("running", b.get("switches").get(0).get("outcome").asText());
  }

  @Test
  void slackGetsOneLineAndPagerDutyAnEventsV2Trigger() throws Exception {
    JsonNode slack = JSON.readTree(WebhookBodies.body(JSON, failoverStart(), Format.SLACK, null));
    assertEquals(
        "[sluice] failover-start app.example.com.: every endpoint of primary is down (by"
            + " controller on ns1) | failover primary -> standby, running 10.0 %",
        slack.get("text").asText());
    assertEquals(1, slack.size());

    JsonNode pd =
        JSON.readTree(WebhookBodies.body(JSON, failoverStart(), Format.PAGERDUTY, "R0UT1NG"));
    assertEquals("R0UT1NG", pd.get("routing_key").asText());
    assertEquals("trigger", pd.get("event_action").asText());
    assertEquals("sluice-prod/state-9", pd.get("dedup_key").asText());
    JsonNode p = pd.get("payload");
    assertEquals(slack.get("text").asText(), p.get("summary").asText());
    assertEquals("ns1", p.get("source").asText());
    assertEquals("error", p.get("severity").asText());
    assertEquals("app.example.com.", p.get("component").asText());
    assertEquals("failover-start", p.get("class").asText());
    assertEquals("sluice-prod/state-9", p.get("custom_details").get("id").asText());
  }

  @Test
  void severityComesFromTheWordsOfTheTypeSoNewKindsGetOne() {
    assertEquals("error", WebhookBodies.severity("gate-failed"));
    assertEquals("error", WebhookBodies.severity("rolled-back"));
    assertEquals("warning", WebhookBodies.severity("ramp-held"));
    assertEquals("warning", WebhookBodies.severity("freeze"));
    assertEquals("info", WebhookBodies.severity("ramp-step"));
    assertEquals("info", WebhookBodies.severity("maintenance-window-open"));
  }

  @Test
  void theSignatureBindsTheTimeToTheBody() {
    byte[] secret = "k".getBytes(StandardCharsets.UTF_8);
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    String s = WebhookBodies.signature(secret, 1_800_000_000L, body);
    assertTrue(s.matches("t=1800000000,v1=[0-9a-f]{64}"), s);
    assertTrue(!s.equals(WebhookBodies.signature(secret, 1_800_000_001L, body)));
  }
}
