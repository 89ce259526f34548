package io.sluice.dns.dnssec.keys;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A key timing tick that fails does not stop the ticks after it. */
class KeyTicksTest {
  @Test
  void aFailingTickIsFollowedByTheNextOne() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch later = new CountDownLatch(2);
    try (KeyTicks ticks =
        KeyTicks.start(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("the key directory could not be read");
              }
              later.countDown();
            },
            10)) {
      assertTrue(later.await(30, TimeUnit.SECONDS), "ticks after the failure: " + calls.get());
    }
  }
}
