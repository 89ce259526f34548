package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.health.Verdict;
import io.sluice.core.state.Shift;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator actions over the admin API of a running node whose own probes check real HTTP backends:
 * a failback confirmed after a real outage is not backed out by the outage's probe failures, and a
 * rollback after {@code move abort} returns to the plan before the move. Waits poll for states with
 * generous timeouts; nothing here asserts how fast anything is.
 */
class OperatorActionsEndToEndTest {
  private static final String SERVICE = "app.example.test.";
  private static final String SVC = "/api/v1/services/app.example.test";
  private static final String PRIMARY = "127.0.0.2";
  private static final String STANDBY = "127.0.0.3";

  @TempDir Path dir;
  private Backend primary;
  private Backend standby;
  private LiveNode node;

  private static String config(int primaryPort, int standbyPort) {
    return PrimaryStandbyConfig.yaml(
        "app",
        PRIMARY,
        primaryPort,
        STANDBY,
        standbyPort,
        """
        mode: auto
        steps: [50, 100]
        window: 1s
        cooldown: 0s
        shiftTtl: 5
        ttlMargin: 1s
        gates: { maxErrorRate: 0.05, minResults: 3 }
        """);
  }

  @BeforeEach
  void start() throws Exception {
    primary = new Backend(PRIMARY);
    standby = new Backend(STANDBY);
    node = LiveNode.start(dir, config(primary.port(), standby.port()));
    LiveNode.waitFor(
        "both pools up",
        () -> verdict("primary/a") == Verdict.UP && verdict("standby/a") == Verdict.UP);
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    primary.close();
    standby.close();
  }

  private Verdict verdict(String endpoint) {
    return node.store().current().health().verdict(endpoint);
  }

  private double shiftPercent(String prefix) {
    for (Shift sh : node.store().current().traffic().plan(SERVICE).shifts()) {
      if (sh.id().startsWith(prefix)) {
        return sh.percent();
      }
    }
    return 0;
  }

  private JsonNode status() throws Exception {
    for (JsonNode s : node.get("/api/v1/status").json().path("services")) {
      if (s.path("service").asText().equals(SERVICE)) {
        return s;
      }
    }
    throw new AssertionError("no status for " + SERVICE);
  }

  private List<String> answers(String subnet) throws Exception {
    return LiveNode.addresses(node.query(SERVICE, subnet));
  }

  @Test
  void aFailbackConfirmedAfterARealOutageIsNotBackedOutByTheOutagesProbeFailures()
      throws Exception {
    primary.kill();
    LiveNode.waitFor("the primary's verdict down", () -> verdict("primary/a") == Verdict.DOWN);
    LiveNode.waitFor("the failover completed", LiveNode.api(() -> shiftPercent("failover") == 100));
    LiveNode.waitFor(
        "the failover ramp settled", LiveNode.api(() -> status().path("ramp").isNull()));
    // Keep the outage going a while: the probe window fills with failures.
    long failuresBefore = node.store().current().health().get("primary/a").failures();
    LiveNode.waitFor(
        "20 more failed checks of the primary",
        () -> node.store().current().health().get("primary/a").failures() >= failuresBefore + 20);
    assertEquals(List.of(STANDBY), answers("10.0.0.0/24"));

    primary.start();
    LiveNode.waitFor("the primary's verdict up", () -> verdict("primary/a") == Verdict.UP);
    LiveNode.waitFor(
        "the failback proposal",
        LiveNode.api(() -> status().path("pending").path("kind").asText().equals("failback")));
    double windowErrorRate = node.store().current().health().get("primary/a").errorRate();
    assertTrue(
        windowErrorRate > 0.05, "the probe window still holds the outage: " + windowErrorRate);

    LiveNode.Reply confirm = node.post(SVC + "/confirm", "{\"reason\":\"primary is back\"}");
    assertEquals(200, confirm.status(), confirm.body());
    LiveNode.waitFor(
        "the failback at its last step", LiveNode.api(() -> shiftPercent("failover") == 0));
    LiveNode.waitFor(
        "the failback ramp settled", LiveNode.api(() -> status().path("ramp").isNull()));
    assertEquals(List.of(PRIMARY), answers("10.0.0.0/24"));
    List<String> actions = node.auditActions();
    assertTrue(!actions.contains("gate-failed"), "no gate failure: " + actions);
    JsonNode switches = node.get("/api/v1/switches?service=app.example.test").json();
    JsonNode failback = null;
    for (JsonNode r : switches.path("switches")) {
      if (r.path("trigger").asText().equals("failback")) {
        failback = r;
      }
    }
    assertEquals("completed", failback.path("outcome").asText(), switches.toString());
  }

  @Test
  void rollbackAfterMoveAbortReturnsToThePlanBeforeTheMove() throws Exception {
    assertEquals(List.of(PRIMARY), answers("10.0.0.0/24"));
    LiveNode.Reply start =
        node.post(
            SVC + "/move",
            "{\"from\":[\"primary\"],\"to\":[\"standby\"],\"steps\":[10,100],\"reason\":\"m\"}");
    assertEquals(200, start.status(), start.body());
    assertEquals(10.0, shiftPercent("move"));
    LiveNode.Reply abort = node.post(SVC + "/move/abort", "{\"reason\":\"hold\"}");
    assertEquals(200, abort.status(), abort.body());
    assertEquals(10.0, shiftPercent("move"), "abort holds the step");
    JsonNode record = node.get("/api/v1/switches?service=app.example.test").json();
    assertEquals(
        List.of(10, 100),
        List.of(
            record.path("switches").path(0).path("details").path("steps").path(0).asInt(),
            record.path("switches").path(0).path("details").path("steps").path(1).asInt()),
        "the record keeps the operator's steps: " + record);

    LiveNode.Reply rollback = node.post(SVC + "/rollback", "{\"reason\":\"undo\"}");
    assertEquals(200, rollback.status(), rollback.body());
    JsonNode r = rollback.json();
    assertTrue(r.path("changed").asBoolean(), rollback.body());
    assertEquals(0.0, shiftPercent("move"), "rolled back to the plan before the move");
    for (int i = 0; i < 64; i++) {
      assertEquals(List.of(PRIMARY), answers("10.0." + i + ".0/24"), "client " + i);
    }
  }

  @Test
  void aRepeatedRequestIdIsAnsweredOnceByTheRealController() throws Exception {
    String body = "{\"from\":[\"primary\"],\"to\":[\"standby\"],\"requestId\":\"inc-42.move\"}";
    LiveNode.Reply first = node.post(SVC + "/move", body);
    LiveNode.Reply again = node.post(SVC + "/move", body);
    assertEquals(200, first.status(), first.body());
    assertEquals(first.body(), again.body(), "the first result, not a conflict");
    long moves = node.auditActions().stream().filter("move-start"::equals).count();
    assertEquals(1, moves, "one change, audited once");
    LiveNode.Reply other = node.post(SVC + "/move", body.replace("inc-42.move", "inc-43.move"));
    assertEquals(409, other.status(), "a new request id is a new command: " + other.body());
  }

  @Test
  void aRetriedRequestIdWhoseFirstAnswerChangedNothingIsNotAppliedLater() throws Exception {
    String rollback = "{\"reason\":\"undo\",\"requestId\":\"inc-44.rb\"}";
    LiveNode.Reply first = node.post(SVC + "/rollback", rollback);
    assertEquals(200, first.status(), first.body());
    assertFalse(first.json().path("changed").asBoolean(), "nothing to roll back: " + first.body());
    LiveNode.Reply move =
        node.post(
            SVC + "/move",
            "{\"from\":[\"primary\"],\"to\":[\"standby\"],\"steps\":[10,100],\"reason\":\"m\"}");
    assertEquals(200, move.status(), move.body());
    LiveNode.Reply again = node.post(SVC + "/rollback", rollback);
    assertEquals(first.body(), again.body(), "a retry returns the first result");
    assertEquals(10.0, shiftPercent("move"), "and does not roll back the move started since");
  }
}
