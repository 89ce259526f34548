package io.sluice.admin.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.testing.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The per-source window of failed authentications, on a manual clock. */
class FailedAuthLimiterTest {

  @Test
  void blocksASourceAfterTheLimitUntilItsWindowEnds() {
    ManualTicker t = new ManualTicker();
    FailedAuthLimiter l = new FailedAuthLimiter(2, t);
    l.recordFailure("192.0.2.1");
    assertEquals(0, l.retryAfterSeconds("192.0.2.1"));
    t.advance(Duration.ofSeconds(20));
    l.recordFailure("192.0.2.1");
    assertEquals(40, l.retryAfterSeconds("192.0.2.1"));
    assertEquals(0, l.retryAfterSeconds("192.0.2.2"), "other sources are not affected");
    t.advance(Duration.ofSeconds(39));
    assertEquals(1, l.retryAfterSeconds("192.0.2.1"));
    t.advance(Duration.ofSeconds(1));
    assertEquals(0, l.retryAfterSeconds("192.0.2.1"));
    l.recordFailure("192.0.2.1");
    assertEquals(0, l.retryAfterSeconds("192.0.2.1"), "a new window starts counting afresh");
  }

  @Test
  void aFloodOfSourcesStaysBounded() {
    ManualTicker t = new ManualTicker();
    FailedAuthLimiter l = new FailedAuthLimiter(1, t);
    for (int i = 0; i < 30_000; i++) {
      l.recordFailure("10.0." + (i / 256) + "." + (i % 256));
    }
    assertTrue(l.retryAfterSeconds("10.0.117.47") > 0, "recent sources stay blocked");
  }
}
