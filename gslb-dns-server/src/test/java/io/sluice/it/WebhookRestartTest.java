package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.control.AuditQuery;
import io.sluice.core.testing.WebhookReceiver;
import io.sluice.core.testing.WebhookReceiver.Request;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole node sends its operator changes to a real webhook receiver that refuses them, is stopped
 * while it retries, and started again: the events it owed are delivered after the start, in order,
 * signed, under the ids they had before. The delivery trace is printed for the record.
 */
class WebhookRestartTest {
  private static final byte[] SECRET = "restart-test-secret".getBytes(StandardCharsets.UTF_8);
  private static final String SVC = "/api/v1/services/app.example.test";

  @TempDir Path dir;

  private static String config(String url) {
    return MonitoringArtifactsTest.SINGLE.formatted(9)
        + """
        notifications:
          maxBackoff: 2s
          webhooks:
            - name: ops
              url: %s
              secretFile: hook.secret
              events: ["freeze", "unfreeze", "*-start", "drill-*"]
              timeout: 2s
        """
            .formatted(url);
  }

  private static void await(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
      Thread.sleep(20);
    }
  }

  private static long sample(LiveNode node, String series) throws Exception {
    for (String line : node.get("/metrics").body().split("\n")) {
      if (line.startsWith(series + " ")) {
        return (long) Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    throw new AssertionError(series + " is not exported");
  }

  private static long failures(LiveNode node) {
    try {
      return sample(node, "sluice_webhook_failures_total{webhook=\"ops\"}");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void eventsOwedWhenTheNodeStopsMidRetryAreDeliveredAfterItStartsAgain() throws Exception {
    Files.write(dir.resolve("hook.secret"), SECRET);
    List<String> trace = new ArrayList<>();
    try (WebhookReceiver receiver = new WebhookReceiver()) {
      receiver.behave(body -> 500);
      String yaml = config(receiver.url());
      List<String> owed;
      try (LiveNode node = LiveNode.start(dir, yaml)) {
        // Registered at zero before any event.
        assertEquals(0, sample(node, "sluice_webhook_delivered_total{webhook=\"ops\"}"));
        assertEquals(1, sample(node, "sluice_webhook_outbox_healthy"));
        assertEquals(200, node.post(SVC + "/freeze", "{\"reason\":\"incident 7\"}").status());
        assertEquals(
            200, node.post(SVC + "/unfreeze", "{\"reason\":\"incident 7 over\"}").status());
        // The first attempt and at least one retry fail; the node is stopped while it retries.
        await(() -> receiver.requests().size() >= 2, "a retry");
        assertEquals(2, sample(node, "sluice_webhook_pending{webhook=\"ops\"}"));
        // The receiver sees the second request before the node has read its 500 and counted it.
        await(() -> failures(node) >= 2, "the second failure to be counted");
        owed =
            new ArrayList<>(
                node
                    .runtime
                    .traffic()
                    .controlPlane()
                    .audit(new AuditQuery(null, null, null, null, 0, 100))
                    .stream()
                    .filter(e -> e.action().endsWith("freeze"))
                    .map(e -> "state-" + e.details().get("revision"))
                    .toList());
        Collections.reverse(owed);
        trace.add(Instant.now() + " node stopped, " + owed.size() + " events owed: " + owed);
      }
      assertTrue(receiver.accepted().isEmpty());
      receiver.behave(body -> 200);
      trace.add(Instant.now() + " receiver recovers; node starts again");
      try (LiveNode node = LiveNode.start(dir, yaml)) {
        await(() -> receiver.accepted().size() >= 2, "delivery after the restart");
        await(
            () -> {
              try {
                return sample(node, "sluice_webhook_pending{webhook=\"ops\"}") == 0;
              } catch (Exception e) {
                return false;
              }
            },
            "an empty backlog");
      }
      long now = System.currentTimeMillis() / 1000;
      for (Request r : receiver.requests()) {
        trace.add(
            r.at()
                + " request id="
                + r.id()
                + " type="
                + r.type()
                + " attempt="
                + r.attempt()
                + " status="
                + r.status()
                + " signature-valid="
                + WebhookReceiver.verified(r, SECRET, now, 300));
        assertTrue(WebhookReceiver.verified(r, SECRET, now, 300));
      }
      trace.forEach(line -> System.err.println("webhook trace: " + line));
      // The node's own id prefixes every event id, the same before and after the restart.
      String source = receiver.requests().get(0).id().split("/")[0];
      assertEquals(
          owed.stream().map(id -> source + "/" + id).toList(),
          receiver.accepted().stream().map(Request::id).distinct().toList(),
          "in order");
      assertEquals(
          List.of("freeze", "unfreeze"),
          receiver.accepted().stream().map(Request::type).distinct().toList());
    }
  }
}
