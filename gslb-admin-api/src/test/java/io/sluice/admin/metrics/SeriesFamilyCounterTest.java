package io.sluice.admin.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/** A counter series stays exact when threads count in cells of their own and then end. */
class SeriesFamilyCounterTest {
  private static SeriesFamily.Counter counter() {
    return new SeriesFamily("sluice_test_total", SeriesFamily.Type.COUNTER, "test", "service")
        .counter("www.example.test.");
  }

  @Test
  void aThreadGetsTheSameCellEachTimeAndAnotherThreadItsOwn() throws Exception {
    SeriesFamily.Counter c = counter();
    SeriesFamily.Cell mine = c.cell();
    SeriesFamily.Cell[] other = new SeriesFamily.Cell[1];
    Thread t = new Thread(() -> other[0] = c.cell());
    t.start();
    t.join();

    assertSame(mine, c.cell());
    assertNotSame(mine, other[0]);
  }

  @Test
  void cellsAndSharedIncrementsOfManyThreadsSumExactlyAfterTheThreadsEnd() throws Exception {
    SeriesFamily.Counter c = counter();
    int threads = 4;
    int each = 100_000;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> all = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      boolean own = i % 2 == 0;
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                SeriesFamily.Cell cell = c.cell();
                for (int n = 0; n < each; n++) {
                  if (own) {
                    cell.increment();
                  } else {
                    c.increment();
                  }
                }
              });
      t.start();
      all.add(t);
    }
    for (Thread t : all) {
      t.join();
    }

    // The first read folds the ended threads' cells into the shared count; later reads agree.
    assertEquals((long) threads * each, c.count());
    assertEquals((long) threads * each, c.count());
    assertEquals((double) threads * each, c.value());
  }

  @Test
  void aThreadTakingACellAfterOthersEndedKeepsTheirCounts() throws Exception {
    SeriesFamily.Counter c = counter();
    for (int i = 0; i < 3; i++) {
      Thread t =
          new Thread(
              () -> {
                SeriesFamily.Cell cell = c.cell();
                for (int n = 0; n < 1000; n++) {
                  cell.increment();
                }
              });
      t.start();
      t.join();
    }
    // This cell's creation folds the three ended cells while no scrape has read them yet.
    c.cell().increment();

    assertEquals(3001, c.count());
  }
}
