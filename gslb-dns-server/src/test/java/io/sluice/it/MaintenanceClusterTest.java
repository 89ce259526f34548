package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.testing.ManualTicker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operator state of this scope on a cluster of two nodes on a real etcd: a dynamic member added
 * through one node is answered by the other, and a maintenance window scheduled through the
 * follower, shared with the leader in one transaction, is started and ended after the leader is
 * gone by the node that took over, on the controllers' clock (one manual clock the test steps),
 * with the answers of the surviving node following it over UDP.
 */
class MaintenanceClusterTest {
  // A client in 10.2/16 (us) is answered from p-us unless p-us is drained.
  private static final String US = "10.2.0.0/24";
  private static final String APP = "app.example.test.";
  private static final String P_US = "198.51.100.21";
  private static final String P_EU = "192.0.2.11";
  private static final String P_US2 = "198.51.100.22";

  @TempDir Path dir;
  private final ManualTicker clock = new ManualTicker(System.currentTimeMillis());

  private static String config(String node, Path state, List<String> endpoints) {
    return AdminEndToEndTest.CONFIG.replace("stateDir: state\n", "stateDir: " + state + "\n")
        + "cluster:\n  node: "
        + node
        + "\n  leaseTtl: 3s\n  etcd: { endpoints: ["
        + String.join(", ", endpoints)
        + "], timeout: 2s }\n";
  }

  private LiveNode start(String node, EtcdCluster etcd) throws Exception {
    Path home = Files.createDirectories(dir.resolve(node));
    return LiveNode.start(home, config(node, home.resolve("state"), etcd.endpoints()), null, clock);
  }

  // Each node writes its own local admin token to its state directory, and which one a node accepts
  // depends on the configuration version it applied (shared through etcd): a request is sent with
  // each node's token in turn until one is not refused with 401 (a refused request applies
  // nothing).
  private final List<String> tokens = new java.util.ArrayList<>();

  private interface Send {
    LiveNode.Reply with(String bearer) throws Exception;
  }

  private LiveNode.Reply call(LiveNode n, Send s) throws Exception {
    LiveNode.Reply r = null;
    for (String t : tokens) {
      r = s.with(t);
      if (r.status() != 401) {
        return r;
      }
    }
    return r;
  }

  private String leader(LiveNode n) throws Exception {
    JsonNode c = call(n, t -> n.get("/api/v1/cluster", t)).json();
    return c.path("leader").isTextual() ? c.path("leader").asText() : null;
  }

  private JsonNode windows(LiveNode n) throws Exception {
    return call(n, t -> n.get("/api/v1/maintenance", t)).json().path("windows");
  }

  private static List<String> sorted(List<String> l) {
    List<String> out = new java.util.ArrayList<>(l);
    out.sort(null);
    return out;
  }

  private static List<String> answer(LiveNode n) throws Exception {
    return LiveNode.addresses(n.query(APP, US));
  }

  @Test
  void aWindowScheduledOnTheFollowerIsRunByWhicheverNodeLeads() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      LiveNode a = start("a", etcd);
      LiveNode b = start("b", etcd);
      LiveNode[] nodes = {a, b};
      for (String n : List.of("a", "b")) {
        tokens.add(
            Files.readString(dir.resolve(n).resolve("state").resolve("admin.token")).strip());
      }
      try {
        LiveNode.waitFor("a leader", LiveNode.api(() -> leader(a) != null));
        LiveNode lead = leader(a).equals("a") ? a : b;
        LiveNode follower = lead == a ? b : a;
        assertEquals(List.of(P_US), answer(follower));

        String at =
            Instant.ofEpochMilli(clock.currentTimeMillis()).plus(Duration.ofHours(1)).toString();
        String window =
            "{\"kind\":\"drain\",\"target\":\"p-us\",\"start\":\""
                + at
                + "\",\"duration\":\"2h\",\"reason\":\"us rack\"}";
        LiveNode.Reply add = call(follower, t -> follower.post("/api/v1/maintenance", window, t));
        assertEquals(200, add.status(), add.body());
        LiveNode.waitFor(
            "the leader has the window",
            LiveNode.api(() -> windows(lead).path(0).path("state").asText().equals("scheduled")));

        // A member added through one node is served by the other as soon as it applies the record.
        String body = "{\"address\":\"" + P_US2 + "\"}";
        LiveNode.Reply member = call(lead, t -> lead.put("/api/v1/pools/p-us/members/b", body, t));
        assertEquals(200, member.status(), member.body());
        LiveNode.waitFor(
            "the follower serves the member",
            LiveNode.api(() -> sorted(answer(follower)).equals(List.of(P_US, P_US2))));
        LiveNode.Reply gone =
            call(follower, t -> follower.delete("/api/v1/pools/p-us/members/b", t));
        assertEquals(200, gone.status(), gone.body());
        LiveNode.waitFor(
            "the leader no longer serves it",
            LiveNode.api(() -> answer(lead).equals(List.of(P_US))));

        // The leader goes away; the follower takes over and runs the window on the clock.
        lead.close();
        nodes[lead == a ? 0 : 1] = null;
        clock.advance(Duration.ofHours(1));
        LiveNode.waitFor(
            "the window started by the new leader",
            LiveNode.api(() -> answer(follower).equals(List.of(P_EU))));
        assertEquals("active", windows(follower).path(0).path("state").asText());
        clock.advance(Duration.ofHours(2));
        LiveNode.waitFor(
            "the window ended", LiveNode.api(() -> answer(follower).equals(List.of(P_US))));
        assertTrue(windows(follower).isEmpty());
        List<String> actions = new java.util.ArrayList<>();
        call(follower, t -> follower.get("/api/v1/audit?limit=1000", t))
            .json()
            .path("events")
            .forEach(e -> actions.add(e.path("action").asText()));
        assertEquals(1, Collections.frequency(actions, "maintenance-start"), actions.toString());
        assertEquals(1, Collections.frequency(actions, "maintenance-end"), actions.toString());
      } finally {
        for (LiveNode n : nodes) {
          if (n != null) {
            n.close();
          }
        }
      }
    }
  }
}
