package io.sluice.probe.testing;

import io.sluice.core.spi.Ticker;
import io.sluice.core.testing.ManualTicker;
import io.sluice.probe.TaskScheduler;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * A {@link TaskScheduler} whose clock moves only when the test advances it. Tasks run on the test's
 * thread, each at its exact due time; real I/O started by a task (checks against real servers) is
 * waited for before the clock moves on, so results are deterministic.
 */
public final class ManualTaskScheduler implements TaskScheduler {
  private static final long SETTLE_LIMIT_NANOS = Duration.ofSeconds(15).toNanos();

  private record Task(long at, long seq, Runnable r, boolean[] cancelled) {}

  private final ManualTicker ticker = new ManualTicker();
  private final PriorityQueue<Task> queue =
      new PriorityQueue<>(
          (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private final ConcurrentLinkedQueue<Runnable> immediate = new ConcurrentLinkedQueue<>();
  private final Object signal = new Object();
  private BooleanSupplier busy = () -> false;
  private long seq;

  @Override
  public Ticker ticker() {
    return ticker;
  }

  /** What says real I/O is still running (checks in flight). */
  public void busyWhile(BooleanSupplier busy) {
    this.busy = busy;
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    boolean[] cancelled = new boolean[1];
    synchronized (queue) {
      queue.add(new Task(ticker.nanoTime() + Math.max(0, delayNanos), seq++, task, cancelled));
    }
    return () -> cancelled[0] = true;
  }

  @Override
  public void execute(Runnable task) {
    immediate.add(task);
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  /** Runs everything runnable now and waits (bounded, real time) until real I/O is done. */
  public void settle() {
    long deadline = System.nanoTime() + SETTLE_LIMIT_NANOS;
    while (true) {
      drain();
      if (immediate.isEmpty() && !busy.getAsBoolean()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("real I/O did not settle within 15 s");
      }
      synchronized (signal) {
        if (immediate.isEmpty()) {
          try {
            signal.wait(2);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
          }
        }
      }
    }
  }

  private void drain() {
    boolean progress = true;
    while (progress) {
      progress = false;
      Runnable r;
      while ((r = immediate.poll()) != null) {
        r.run();
        progress = true;
      }
      while (true) {
        Task t;
        synchronized (queue) {
          t = queue.peek();
          if (t == null || t.at > ticker.nanoTime()) {
            break;
          }
          queue.poll();
        }
        if (!t.cancelled[0]) {
          t.r.run();
          progress = true;
        }
      }
    }
  }

  /** Moves the clock forward by {@code d}, running each task at its due time. */
  public void advance(Duration d) {
    long end = ticker.nanoTime() + d.toNanos();
    settle();
    while (true) {
      long next;
      synchronized (queue) {
        Task t = queue.peek();
        if (t == null || t.at > end) {
          break;
        }
        next = t.at;
      }
      if (next > ticker.nanoTime()) {
        ticker.advance(Duration.ofNanos(next - ticker.nanoTime()));
      }
      settle();
    }
    if (end > ticker.nanoTime()) {
      ticker.advance(Duration.ofNanos(end - ticker.nanoTime()));
    }
    settle();
  }
}
