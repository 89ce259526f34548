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
 * audit query and more viewers queued behind them, a rollback is still answered.
 */
class CommandPriorityTest {
  @Test
  void aRollbackIsAnsweredWhileAuditReadsAreStuck() throws Exception {
    try (AdminFixture f = new AdminFixture()) {
      CountDownLatch release = new CountDownLatch(1);
      f.control.holdAudits(release);
      HttpClient viewers = HttpClient.newHttpClient();
      List<CompletableFuture<HttpResponse<String>>> reads = new ArrayList<>();
      try {
        for (int i = 0; i < 10; i++) {
          reads.add(
              viewers.sendAsync(
                  HttpRequest.newBuilder(URI.create(f.baseUrl() + "/api/v1/audit?actor=otto"))
                      .header("Authorization", "Bearer " + VIEWER)
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString()));
        }
        long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (f.control.auditsHeld() < 2 && System.nanoTime() < waitUntil) {
          Thread.sleep(10);
        }
        assertEquals(2, f.control.auditsHeld(), "both read threads are stuck in audit queries");

        var rollback = f.post("/api/v1/services/app.example.com/rollback", OPERATOR, "{}");

        assertEquals(200, rollback.statusCode(), rollback.body());
        assertEquals("rollback", f.control.lastCall().command());
        assertEquals(2, f.control.auditsHeld(), "the reads were still stuck when it was answered");
        assertTrue(reads.stream().noneMatch(CompletableFuture::isDone));
      } finally {
        release.countDown();
      }
      for (var r : reads) {
        assertEquals(200, r.get(30, TimeUnit.SECONDS).statusCode());
      }
    }
  }
}
