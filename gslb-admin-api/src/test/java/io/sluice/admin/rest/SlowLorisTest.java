package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.testing.SlowLoris;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A slow-loris flood without a token: hundreds of loopback connections that trickle header lines.
 * The listener keeps at most its cap of them, an operator's rollback still gets through, and every
 * trickling connection is closed once its request deadline passes, however often it sends a byte.
 */
class SlowLorisTest {
  private static final int FLOOD = 300;
  private static final int MAX = 40;

  @Test
  void aTricklingFloodNeitherLocksOutTheOperatorNorKeepsItsConnections() throws Exception {
    try (AdminFixture f =
            new AdminFixture(
                "  connections: { max: " + MAX + ", perSource: 30, requestDeadline: 1s }");
        SlowLoris flood =
            SlowLoris.start(
                f.server.port(), FLOOD, "GET /api/v1/status HTTP/1.1", Duration.ofMillis(100))) {
      for (int i = 0; i < 5; i++) {
        var r = f.post("/api/v1/services/app.example.com/rollback", OPERATOR, "{}");
        assertEquals(200, r.statusCode(), r.body());
        ConnectionCounts c = f.server.connectionCounts();
        assertTrue(c.open() <= MAX, c.toString());
      }
      // Every trickling connection is closed: evicted to make room, or cut at its deadline.
      assertEquals(0, flood.stillOpenAfter(Duration.ofSeconds(20)));
      ConnectionCounts c = f.server.connectionCounts();
      assertEquals(FLOOD, c.evicted() + c.timedOut(), "the guard closed each of them: " + c);
      assertTrue(c.timedOut() > 0, "the connections kept were cut by the deadline: " + c);
      assertEquals(0, c.refused(), c.toString());
      String scrape = f.metrics.scrape();
      assertTrue(
          scrape.contains(
              "sluice_admin_connections_closed_total{reason=\"deadline\"} " + c.timedOut()),
          scrape);
    }
  }
}
