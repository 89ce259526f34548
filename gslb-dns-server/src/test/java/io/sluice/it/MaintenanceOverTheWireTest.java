package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.health.Verdict;
import io.sluice.core.testing.ManualTicker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance windows on a running node whose probes check real HTTP backends, over the admin API
 * and {@code sluice ctl}, with answers checked by dnsjava over UDP: a window scheduled an hour
 * ahead survives a restart while scheduled and while running, drains the primary at its start and
 * undrains it at its end, both executed by the controller on a manual clock the test steps.
 */
class MaintenanceOverTheWireTest {
  private static final String SERVICE = "app.example.test.";
  private static final String PRIMARY = "127.0.0.2";
  private static final String STANDBY = "127.0.0.3";

  @TempDir Path dir;
  private Backend primary;
  private Backend standby;
  private LiveNode node;
  private String yaml;
  private final ManualTicker clock = new ManualTicker(System.currentTimeMillis());

  @BeforeEach
  void start() throws Exception {
    primary = new Backend(PRIMARY);
    standby = new Backend(STANDBY);
    yaml =
        PrimaryStandbyConfig.yaml(
            "app",
            PRIMARY,
            primary.port(),
            STANDBY,
            standby.port(),
            """
            mode: auto
            shiftTtl: 5
            ttlMargin: 1s
            """);
    node = LiveNode.start(dir, yaml, null, clock);
    waitUp();
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    primary.close();
    standby.close();
  }

  private void waitUp() throws InterruptedException {
    LiveNode.waitFor(
        "both pools up",
        () ->
            node.store().current().health().verdict("primary/a") == Verdict.UP
                && node.store().current().health().verdict("standby/a") == Verdict.UP);
  }

  private void restart() throws Exception {
    long t0 = System.nanoTime();
    node.close();
    long t1 = System.nanoTime();
    node = LiveNode.start(dir, yaml, null, clock);
    long t2 = System.nanoTime();
    waitUp();
    System.err.println(
        "TIMING close "
            + (t1 - t0) / 1e6
            + " start "
            + (t2 - t1) / 1e6
            + " up "
            + (System.nanoTime() - t2) / 1e6);
  }

  private LiveNode.CtlRun ctl(String... args) {
    return LiveNode.ctl(
        Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", node.token), args);
  }

  private JsonNode windows() throws Exception {
    return node.get("/api/v1/maintenance").json().path("windows");
  }

  private String state() throws Exception {
    JsonNode w = windows();
    return w.isEmpty() ? "none" : w.path(0).path("state").asText();
  }

  private List<String> answers() throws Exception {
    return LiveNode.addresses(node.query(SERVICE, "10.0.0.0/24"));
  }

  @Test
  void aScheduledDrainSurvivesRestartsAndRunsOnTheControllersClock() throws Exception {
    assertEquals(List.of(PRIMARY), answers());
    String at =
        Instant.ofEpochMilli(clock.currentTimeMillis()).plus(Duration.ofHours(1)).toString();
    LiveNode.CtlRun add =
        ctl("maintenance", "add", "drain", "primary", "--at", at, "--for", "2h", "-r", "kernel");
    assertEquals(0, add.exit(), add.err());
    assertTrue(add.out().contains("scheduled maintenance window mw-"), add.out());

    LiveNode.CtlRun list = ctl("maintenance", "list");
    assertTrue(list.out().contains("scheduled") && list.out().contains("primary"), list.out());
    restart();
    assertEquals("scheduled", state(), "kept across a restart");
    assertEquals(List.of(PRIMARY), answers(), "nothing drained before its start");

    clock.advance(Duration.ofHours(1));
    // The state is durable before its snapshot is published: wait for the answers too.
    LiveNode.waitFor("the window's start", LiveNode.api(() -> state().equals("active")));
    LiveNode.waitFor("the primary drained", LiveNode.api(() -> answers().equals(List.of(STANDBY))));
    LiveNode.CtlRun status = ctl("status");
    assertTrue(status.out().contains("Maintenance windows:"), status.out());
    assertTrue(status.out().contains("yes (mw-"), "the service shows the window's freeze");
    String metrics = node.get("/metrics").body();
    assertTrue(metrics.contains("sluice_maintenance_windows{state=\"active\"} 1.0"), metrics);
    assertTrue(metrics.contains("sluice_traffic_frozen{service=\"app.example.test.\"} 1.0"));

    restart();
    assertEquals("active", state(), "still running after a restart");
    assertEquals(List.of(STANDBY), answers(), "still drained after a restart");

    clock.advance(Duration.ofHours(2));
    LiveNode.waitFor("the window's end", LiveNode.api(() -> state().equals("none")));
    LiveNode.waitFor(
        "undrained at the end", LiveNode.api(() -> answers().equals(List.of(PRIMARY))));
    List<String> actions = node.auditActions();
    assertTrue(
        actions.containsAll(List.of("maintenance-add", "maintenance-start", "maintenance-end")),
        actions.toString());
    JsonNode switches = node.get("/api/v1/switches?service=app.example.test").json();
    JsonNode rec = switches.path("switches").path(0);
    assertEquals("maintenance-window", rec.path("trigger").asText(), switches.toString());
    assertEquals("completed", rec.path("outcome").asText(), switches.toString());
    assertTrue(
        node.get("/metrics").body().contains("sluice_maintenance_windows{state=\"active\"} 0.0"));
  }

  @Test
  void rulesOverHttpAndCancelOfARunningWindow() throws Exception {
    String past = Instant.ofEpochMilli(clock.currentTimeMillis()).minusSeconds(60).toString();
    LiveNode.Reply bad =
        node.post(
            "/api/v1/maintenance",
            "{\"kind\":\"drain\",\"target\":\"primary/zz\",\"start\":\""
                + past
                + "\",\"duration\":\"9d\"}");
    assertEquals(400, bad.status(), bad.body());
    List<String> fields = new ArrayList<>();
    bad.json().path("problems").forEach(p -> fields.add(p.path("field").asText()));
    assertEquals(List.of("target", "start", "duration"), fields, bad.body());

    LiveNode.Reply kind =
        node.post("/api/v1/maintenance", "{\"kind\":\"paint\",\"target\":\"primary\"}");
    assertEquals(400, kind.status(), kind.body());
    assertTrue(kind.body().contains("must be one of drain, move"), kind.body());

    LiveNode.Reply first =
        node.post(
            "/api/v1/maintenance",
            "{\"kind\":\"drain\",\"target\":\"primary\",\"duration\":\"1h\",\"reason\":\"r\"}");
    assertEquals(200, first.status(), first.body());
    LiveNode.Reply overlap =
        node.post(
            "/api/v1/maintenance",
            "{\"kind\":\"move\",\"target\":\"app.example.test\",\"from\":[\"primary\"],"
                + "\"to\":[\"standby\"],\"duration\":\"10m\"}");
    assertEquals(409, overlap.status(), overlap.body());
    LiveNode.waitFor("the window's start", LiveNode.api(() -> state().equals("active")));
    LiveNode.waitFor("the primary drained", LiveNode.api(() -> answers().equals(List.of(STANDBY))));

    String id = windows().path(0).path("id").asText();
    LiveNode.CtlRun cancel = ctl("maintenance", "cancel", id, "-r", "done early");
    assertEquals(0, cancel.exit(), cancel.err());
    assertTrue(cancel.out().contains("cancelled running"), cancel.out());
    assertEquals("none", state());
    assertEquals(List.of(PRIMARY), answers(), "undrained by the cancel");
    assertTrue(node.auditActions().contains("maintenance-cancel"));
  }
}
