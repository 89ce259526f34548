package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Traffic commands never queue behind reads of history: with every read thread stuck in a slow
 * audit query and the read queue full (one more read is refused with 503 at once), a rollback is
 * still answered.
 */
class CommandPriorityTest {
  @Test
  void aRollbackIsAnsweredWhileEveryReadThreadIsStuckAndTheReadQueueIsFull() throws Exception {
    try (AdminFixture f = new AdminFixture()) {
      CountDownLatch release = new CountDownLatch(1);
      f.control.holdAudits(release);
      HttpClient viewers = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<String>>> reads = new ArrayList<>();
      try {
        for (int i = 0; i < 2 + AdminServer.QUEUED_READS; i++) {
          reads.add(audit(viewers, f));
        }
        // Once both read threads hold a query and the queue is full, one more read is refused at
        // once instead of waiting; until then each extra read simply queues.
        HttpResponse<String> refused = null;
        for (int i = 0; i < 100 && refused == null; i++) {
          CompletableFuture<HttpResponse<String>> extra = audit(viewers, f);
          try {
            refused = extra.get(2, TimeUnit.SECONDS);
          } catch (java.util.concurrent.TimeoutException queued) {
            reads.add(extra);
          }
        }
        assertTrue(refused != null, "a read beyond the queue limit is refused");
        assertEquals(503, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("\"busy\""), refused.body());
        assertEquals(2, f.control.auditsHeld(), "both read threads are stuck in audit queries");

        var rollback = f.post("/api/v1/services/app.example.com/rollback", OPERATOR, "{}");

        assertEquals(200, rollback.statusCode(), rollback.body());
        assertEquals("rollback", f.control.lastCall().command());
        // Connections race, so the refused one need not be the last sent; none was answered yet.
        assertTrue(
            reads.stream()
                .filter(CompletableFuture::isDone)
                .allMatch(r -> r.join().statusCode() == 503),
            "the accepted reads were still held when the rollback was answered");
      } finally {
        release.countDown();
      }
      int answered = 0;
      for (var r : reads) {
        int status = r.get(30, TimeUnit.SECONDS).statusCode();
        assertTrue(status == 200 || status == 503, "status " + status);
        answered += status == 200 ? 1 : 0;
      }
      assertEquals(
          2 + AdminServer.QUEUED_READS, answered, "held and queued reads are all answered");
    }
  }

  private static CompletableFuture<HttpResponse<String>> audit(HttpClient client, AdminFixture f) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create(f.baseUrl() + "/api/v1/audit?actor=otto"))
            .header("Authorization", "Bearer " + VIEWER)
            .timeout(Duration.ofSeconds(60))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
