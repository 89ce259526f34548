package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** The token buckets: rate, debt window, slip counting and slot sharing. */
class RateLimiterTest {
  private final RateLimiter limiter = new RateLimiter(1024);

  @Test
  void rateThenSlipEveryNthAndDropTheRest() {
    long key = RateLimiter.mix(limiter.seed(), 1);
    for (int i = 0; i < 5; i++) {
      assertEquals(RateLimiter.PASS, limiter.charge(key, 100, 5, 3, 3));
    }
    // The first over the limit says so, for the log.
    assertEquals(RateLimiter.DROP | RateLimiter.FIRST, limiter.charge(key, 100, 5, 3, 3));
    assertEquals(RateLimiter.DROP, limiter.charge(key, 100, 5, 3, 3));
    assertEquals(RateLimiter.SLIP, limiter.charge(key, 100, 5, 3, 3));
    assertEquals(RateLimiter.DROP, limiter.charge(key, 100, 5, 3, 3));
    assertEquals(RateLimiter.DROP, limiter.charge(key, 100, 5, 3, 3));
    assertEquals(RateLimiter.SLIP, limiter.charge(key, 100, 5, 3, 3));
  }

  @Test
  void slipZeroDropsAllAndSlipOneTruncatesAll() {
    long a = RateLimiter.mix(limiter.seed(), 2);
    long b = RateLimiter.mix(limiter.seed(), 3);
    limiter.charge(a, 7, 1, 1, 0);
    limiter.charge(b, 7, 1, 1, 1);
    for (int i = 0; i < 5; i++) {
      assertEquals(RateLimiter.DROP, limiter.charge(a, 7, 1, 1, 0) & ~RateLimiter.FIRST);
      assertEquals(RateLimiter.SLIP, limiter.charge(b, 7, 1, 1, 1) & ~RateLimiter.FIRST);
    }
  }

  @Test
  void debtIsPaidBackOverTheWindow() {
    long key = RateLimiter.mix(limiter.seed(), 4);
    // 10/s with a 3 s window: at most 30 owed, however long the flood.
    for (int i = 0; i < 1000; i++) {
      limiter.charge(key, 50, 10, 3, 0);
    }
    // One second later the bucket still owes 20: limited.
    assertNotEquals(RateLimiter.PASS, limiter.charge(key, 51, 10, 3, 0));
    // Once the window has passed the debt is paid: answered again.
    assertEquals(RateLimiter.PASS, limiter.charge(key, 54, 10, 3, 0));
    // A bucket idle longer than the window is full.
    long other = RateLimiter.mix(limiter.seed(), 5);
    for (int i = 0; i < 100; i++) {
      limiter.charge(other, 60, 10, 3, 0);
    }
    for (int i = 0; i < 10; i++) {
      assertEquals(RateLimiter.PASS, limiter.charge(other, 200, 10, 3, 0));
    }
  }

  @Test
  void keysOfOneSlotPairKeepTheirOwnBuckets() {
    // Same slot index, different tags: the second key takes the neighbour slot.
    long a = 0x0001_0000_0000_0010L;
    long b = 0x0002_0000_0000_0010L;
    for (int i = 0; i < 3; i++) {
      limiter.charge(a, 9, 2, 1, 0);
    }
    assertEquals(RateLimiter.PASS, limiter.charge(b, 9, 2, 1, 0));
    assertEquals(RateLimiter.DROP, limiter.charge(a, 9, 2, 1, 0));
  }
}
