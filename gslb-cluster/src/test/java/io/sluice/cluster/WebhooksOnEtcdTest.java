package io.sluice.cluster;

import static io.sluice.cluster.SharedStateOnEtcdTest.APP;
import static io.sluice.cluster.SharedStateOnEtcdTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.cluster.LeaderTakeoverOnEtcdTest.Node;
import io.sluice.cluster.testing.EtcdCluster;
import io.sluice.core.config.NotificationsConfig;
import io.sluice.core.config.NotificationsConfig.Format;
import io.sluice.core.config.NotificationsConfig.WebhookConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.notify.Webhooks;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.store.DiskWrites;
import io.sluice.core.testing.WebhookReceiver;
import io.sluice.core.testing.WebhookReceiver.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes on a real etcd, each with the same webhook: only the leader sends the cluster's events,
 * so the receiver gets each once; when the leader is lost while its receiver refuses an event, the
 * new leader resumes from the cursor the old one kept in etcd: it sends the refused event and not
 * the one already accepted.
 */
class WebhooksOnEtcdTest {
  private static final Actor ALICE = new Actor("alice", "operator");

  @TempDir Path dir;

  private Webhooks webhooks(Node n, Path stateDir, NotificationsConfig config) {
    return Webhooks.start(
        new Webhooks.Setup(
            stateDir,
            n.system.auditLog(),
            n.name,
            "/sluice/test",
            n.ticker,
            n.leadership,
            EtcdWebhookCursors.create(n.client, Duration.ofSeconds(5)),
            new GslbMetrics() {},
            new Random(1),
            DiskWrites.DIRECT),
        config,
        dir);
  }

  /**
   * A first etcd call in a fresh JVM (gRPC set-up, class loading) can outlast the nodes' 5 s lease
   * grant on a loaded machine: made once here, with room.
   */
  private static void warmUp(EtcdCluster etcd) throws Exception {
    try (io.etcd.jetcd.Client c =
        EtcdClients.create(SharedStateOnEtcdTest.config("warm-up", etcd.endpoints()))) {
      c.getKVClient()
          .get(EtcdClients.bytes("warm-up"))
          .get(60, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  @Test
  void onlyTheLeaderSendsAndANewLeaderResumesAfterWhatTheOldOneDelivered() throws Exception {
    Files.writeString(dir.resolve("hook.secret"), "cluster-secret");
    try (WebhookReceiver receiver = new WebhookReceiver();
        EtcdCluster etcd = EtcdCluster.start(1)) {
      warmUp(etcd);
      try (Node a = new Node("ns1", etcd, dir.resolve("ns1"));
          Node b = new Node("ns2", etcd, dir.resolve("ns2"))) {
        NotificationsConfig config =
            new NotificationsConfig(
                List.of(
                    new WebhookConfig(
                        "ops",
                        receiver.url(),
                        "hook.secret",
                        null,
                        List.of("freeze", "unfreeze"),
                        null,
                        Duration.ofSeconds(2),
                        Format.JSON)),
                null,
                Duration.ofSeconds(1));
        Node leader = LeaderTakeoverOnEtcdTest.leaderOnceCaughtUp(a, b);
        Node follower = leader == a ? b : a;
        try (Webhooks la = webhooks(leader, dir.resolve(leader.name), config);
            Webhooks fo = webhooks(follower, dir.resolve(follower.name), config)) {
          // Sent through the follower: every node records it, the leader alone sends it.
          follower.controller().freeze(ALICE, APP, true, "hold", null);
          await("delivered", Duration.ofSeconds(20), () -> receiver.accepted().size() == 1);
          String first = receiver.accepted().get(0).id();
          // The node that made the change, though another sent it.
          assertEquals(follower.name, receiver.accepted().get(0).body().get("node").asText());
          await(
              "the cursor in etcd",
              Duration.ofSeconds(10),
              () -> !EtcdWebhookCursors.create(a.client, Duration.ofSeconds(5)).read().isEmpty());

          receiver.behave(body -> 500);
          follower.controller().freeze(ALICE, APP, false, "go", null);
          await("a refused attempt", Duration.ofSeconds(20), () -> receiver.requests().size() >= 2);
          // The leader steps down (as at a shutdown): its successor resumes from etcd's cursors.
          leader.leadership.close();
          await("the follower takes over", Duration.ofSeconds(30), follower.leadership::leads);
          receiver.behave(body -> 200);
          await(
              "the refused event from the new leader",
              Duration.ofSeconds(30),
              () -> receiver.accepted().size() >= 2);
          Thread.sleep(300); // nothing else may follow
          List<Request> all = receiver.requests();
          assertEquals(
              1,
              all.stream().filter(r -> r.id().equals(first)).count(),
              "never sent again: " + all);
          List<String> accepted = receiver.accepted().stream().map(Request::id).distinct().toList();
          assertEquals(2, accepted.size(), accepted.toString());
          assertEquals(first, accepted.get(0));
          assertTrue(
              all.stream().allMatch(r -> r.id().startsWith("sluice-test/state-")),
              "cluster-wide ids: " + all);
        }
      }
    }
  }
}
