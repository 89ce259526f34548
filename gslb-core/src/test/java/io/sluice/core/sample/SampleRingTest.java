package io.sluice.core.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The hand-off from event loops to a background thread: bounded, never waiting, drops counted. */
class SampleRingTest {

  @Test
  void aFullRingDropsAndCountsInsteadOfWaiting() {
    SampleRing<Integer> ring = new SampleRing<>(4);
    for (int i = 0; i < 4; i++) {
      assertTrue(ring.offer(i));
    }
    assertFalse(ring.offer(4), "no free slot: dropped");
    assertEquals(1, ring.dropped());
    List<Integer> got = new ArrayList<>();
    assertEquals(4, ring.drain(got::add, 100));
    assertEquals(List.of(0, 1, 2, 3), got);
    assertTrue(ring.offer(5), "drained slots take items again");
    got.clear();
    ring.drain(got::add, 100);
    assertEquals(List.of(5), got);
    assertEquals(6, ring.offered());
  }

  @Test
  void everyItemFromConcurrentProducersIsEitherTakenOrCountedAsDropped() throws Exception {
    SampleRing<Long> ring = new SampleRing<>(64);
    int producers = 4;
    int each = 20_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (long i = 0; i < each; i++) {
                  ring.offer(i);
                }
              });
      t.start();
      threads.add(t);
    }
    long[] taken = {0};
    go.countDown();
    boolean running = true;
    while (running) {
      running = threads.stream().anyMatch(Thread::isAlive);
      ring.drain(x -> taken[0]++, 1000);
    }
    // Items filled after a sweep passed their slot are found by the next sweeps.
    for (int lap = 0; lap < 3; lap++) {
      ring.drain(x -> taken[0]++, Integer.MAX_VALUE);
    }
    assertEquals(producers * (long) each, taken[0] + ring.dropped());
  }

  @Test
  void thresholdsSampleTheirShare() {
    assertEquals(0, SampleRing.threshold(0));
    assertFalse(SampleRing.sampled(SampleRing.threshold(0)));
    assertTrue(SampleRing.sampled(SampleRing.threshold(1)));
    assertEquals(1 << 23, SampleRing.threshold(0.5));
  }
}
