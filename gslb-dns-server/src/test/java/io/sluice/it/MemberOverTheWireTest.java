package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic members on a running node, over the admin API: a member added to a pool is probed by the
 * node's own checks against a real local HTTP backend and answered over UDP without a reload, is
 * kept across a reload of the file and a restart, and is gone once removed; a bad member is refused
 * with every problem at once.
 */
class MemberOverTheWireTest {
  private static final String SERVICE = "app.example.test.";
  private static final String PRIMARY = "127.0.0.2";
  private static final String STANDBY = "127.0.0.3";
  private static final String ADDED = "127.0.0.4";
  private static final String MEMBER = "/api/v1/pools/primary/members/b";

  @TempDir Path dir;
  private Backend primary;
  private Backend standby;
  private Backend added;
  private LiveNode node;
  private String yaml;

  @BeforeEach
  void start() throws Exception {
    primary = new Backend(PRIMARY);
    standby = new Backend(STANDBY);
    // The pool's checks go to its port: the new member listens on the same one.
    added = new Backend(ADDED, primary.port());
    yaml =
        PrimaryStandbyConfig.yaml(
            "app", PRIMARY, primary.port(), STANDBY, standby.port(), "mode: manual");
    node = LiveNode.start(dir, yaml);
    LiveNode.waitFor("both pools up", () -> verdict("primary/a") == Verdict.UP);
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    primary.close();
    standby.close();
    added.close();
  }

  private Verdict verdict(String endpoint) {
    return node.store().current().health().verdict(endpoint);
  }

  private List<String> answers() throws Exception {
    List<String> a = new ArrayList<>(LiveNode.addresses(node.query(SERVICE, "10.0.0.0/24")));
    a.sort(null);
    return a;
  }

  @Test
  void aMemberAddedThroughTheApiIsProbedAnsweredKeptAndRemoved() throws Exception {
    assertEquals(List.of(PRIMARY), answers());
    LiveNode.Reply bad =
        node.put("/api/v1/pools/primary/members/a", "{\"address\":\"nope\",\"weight\":70000}");
    assertEquals(400, bad.status(), bad.body());
    List<String> fields = new ArrayList<>();
    bad.json().path("problems").forEach(p -> fields.add(p.path("field").asText()));
    assertEquals(List.of("name", "address", "weight"), fields, bad.body());

    LiveNode.Reply add = node.put(MEMBER, "{\"address\":\"" + ADDED + "\",\"reason\":\"asg\"}");
    assertEquals(200, add.status(), add.body());
    LiveNode.waitFor("the new member probed up", () -> verdict("primary/b") == Verdict.UP);
    LiveNode.waitFor(
        "the new member answered", LiveNode.api(() -> answers().equals(List.of(PRIMARY, ADDED))));

    LiveNode.Reply reload = node.post("/api/v1/config/reload", "{}");
    assertEquals(200, reload.status(), reload.body());
    assertTrue(
        reload.json().path("changes").path("pools").path("changed").isEmpty(),
        "the member is not reported as a change of the file: " + reload.body());
    assertEquals(List.of(PRIMARY, ADDED), answers(), "a reload keeps the member");

    node.close();
    node = LiveNode.start(dir, yaml);
    LiveNode.waitFor("probed up after a restart", () -> verdict("primary/b") == Verdict.UP);
    LiveNode.waitFor(
        "answered after a restart", LiveNode.api(() -> answers().equals(List.of(PRIMARY, ADDED))));

    added.kill();
    LiveNode.waitFor("its checks fail", () -> verdict("primary/b") == Verdict.DOWN);
    assertEquals(List.of(PRIMARY), answers(), "a member is health-checked like any endpoint");

    LiveNode.Reply remove = node.delete(MEMBER);
    assertEquals(200, remove.status(), remove.body());
    assertTrue(node.store().current().config().pools().get("primary").endpoints().size() == 1);
    List<String> actions = node.auditActions();
    assertTrue(actions.containsAll(List.of("member-add", "member-remove")), actions.toString());
    LiveNode.Reply again = node.delete(MEMBER);
    assertEquals(400, again.status(), again.body());
  }
}
