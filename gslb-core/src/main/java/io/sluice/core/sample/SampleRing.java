package io.sluice.core.sample;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A bounded, lock-free hand-off from many producers (the event loops) to one consumer thread. A
 * producer claims a slot with one atomic increment and fills it with one compare-and-set; when the
 * consumer has not emptied that slot yet the item is dropped and counted, so a producer never
 * waits. Order is not kept exactly (a slow producer's item may be taken a lap later): consumers are
 * samplers and loggers, for which that does not matter.
 */
public final class SampleRing<T> {
  private final AtomicReferenceArray<T> slots;
  private final int mask;
  private final AtomicLong claimed = new AtomicLong();
  private final LongAdder dropped = new LongAdder();
  private final LongAdder offered = new LongAdder();
  // Read and written by the consumer thread only: the next slot it looks at.
  private long cursor;

  /** A ring of at least {@code capacity} slots (rounded up to a power of two). */
  public SampleRing(int capacity) {
    int size = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
    this.slots = new AtomicReferenceArray<>(size);
    this.mask = size - 1;
  }

  /** Hands {@code item} over, or drops it (counted) when its slot is still full; never blocks. */
  public boolean offer(T item) {
    offered.increment();
    long i = claimed.getAndIncrement();
    if (slots.compareAndSet((int) (i & mask), null, item)) {
      return true;
    }
    dropped.increment();
    return false;
  }

  /**
   * Passes up to {@code max} waiting items to {@code sink}, on the one consumer thread; returns how
   * many it passed. Looks at each slot at most once per call, from where the last call stopped, so
   * an item whose producer filled its slot late is found by a later call.
   */
  public int drain(Consumer<? super T> sink, int max) {
    int n = 0;
    int size = slots.length();
    for (int k = 0; k < size && n < max; k++) {
      int i = (int) (cursor++ & mask);
      T item = slots.get(i);
      if (item != null) {
        // Only this thread empties slots and producers only fill empty ones: no race here.
        slots.set(i, null);
        sink.accept(item);
        n++;
      }
    }
    return n;
  }

  /** Items dropped because the consumer was behind. */
  public long dropped() {
    return dropped.sum();
  }

  /** Items offered, dropped ones included. */
  public long offered() {
    return offered.sum();
  }

  /** The number of slots. */
  public int capacity() {
    return slots.length();
  }

  /**
   * A sampling threshold for {@link #sampled}: {@code rate} (0..1) of draws fall below it; 0 turns
   * sampling off.
   */
  public static int threshold(double rate) {
    if (!(rate > 0)) {
      return 0;
    }
    return (int) Math.max(1, Math.min(1 << 24, Math.round(rate * (1 << 24))));
  }

  /**
   * Whether this call is sampled at {@code threshold} (from {@link #threshold}): one draw from the
   * calling thread's own generator, no shared state.
   */
  public static boolean sampled(int threshold) {
    return threshold > 0
        && (threshold >= 1 << 24
            || java.util.concurrent.ThreadLocalRandom.current().nextInt(1 << 24) < threshold);
  }
}
