package io.sluice.probe;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.probe.check.CheckResult;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Runs every target's check on its interval, with jitter, at most {@code maxInFlight} at once, and
 * re-runs a target at the fast cadence on request. No thread per target: due times are tasks on the
 * probe thread, checks are asynchronous, and completions come back to the probe thread.
 *
 * <p>A target's first run is due within the first second (the initial round); its second run falls
 * at a uniformly random point of its next interval, which spreads thousands of targets evenly;
 * later runs are every interval ±10%. A target never runs twice at the same time: a fast recheck
 * that falls due while the check is running runs right after it.
 */
final class ProbeScheduler {
  private static final long FIRST_ROUND_NANOS = 1_000_000_000L;
  private static final double JITTER = 0.1;

  /** Receives every finished check on the probe thread. */
  interface ResultHandler {
    void onResult(ProbeTarget target, CheckResult result);
  }

  private final class Slot {
    final ProbeTarget target;
    TaskScheduler.Cancellable next;
    boolean running;
    boolean rerun;
    boolean fastPending;
    boolean removed;
    int runs;

    Slot(ProbeTarget target) {
      this.target = target;
    }
  }

  private final TaskScheduler ts;
  private final int maxInFlight;
  private final GslbMetrics metrics;
  private final RandomGenerator random;
  private final ResultHandler handler;
  private final Map<ProbeTarget, Slot> slots = new IdentityHashMap<>();

  /** A run that found every in-flight slot taken, with the time it was due. */
  private record Waiting(Slot slot, long due) {}

  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private final ScheduleLag lag = new ScheduleLag();
  private int inFlight;
  private long completed;

  ProbeScheduler(
      TaskScheduler ts,
      int maxInFlight,
      GslbMetrics metrics,
      RandomGenerator random,
      ResultHandler handler) {
    this.ts = ts;
    this.maxInFlight = maxInFlight;
    this.metrics = metrics;
    this.random = random;
    this.handler = handler;
  }

  /**
   * Schedules {@code t}. An {@code urgent} target (one that decides verdicts, or a canary) runs
   * within the first second, as part of the initial round; any other starts at a random point of
   * its first interval and then keeps that phase, so the initial round is not twice as large.
   */
  void add(ProbeTarget t, boolean urgent) {
    Slot s = new Slot(t);
    slots.put(t, s);
    long spread = urgent ? Math.min(t.intervalNanos(), FIRST_ROUND_NANOS) : t.intervalNanos();
    if (!urgent) {
      s.runs = 1;
    }
    scheduleRegular(s, now() + (long) (random.nextDouble() * spread));
  }

  void remove(ProbeTarget t) {
    Slot s = slots.remove(t);
    if (s != null) {
      s.removed = true;
      if (s.next != null) {
        s.next.cancel();
      }
    }
  }

  /** Runs {@code t} once more after {@code delayNanos}, unless such a run is already pending. */
  void recheck(ProbeTarget t, long delayNanos) {
    Slot s = slots.get(t);
    if (s == null || s.fastPending) {
      return;
    }
    s.fastPending = true;
    long due = now() + delayNanos;
    ts.schedule(
        () -> {
          s.fastPending = false;
          fire(s, due);
        },
        delayNanos);
  }

  private void scheduleRegular(Slot s, long due) {
    s.next =
        ts.schedule(
            () -> {
              s.runs++;
              long interval = s.target.intervalNanos();
              double factor =
                  s.runs == 1
                      ? 0.5 + random.nextDouble()
                      : 1 + JITTER * (2 * random.nextDouble() - 1);
              scheduleRegular(s, due + (long) (interval * factor));
              fire(s, due);
            },
            due - now());
  }

  private void fire(Slot s, long due) {
    if (s.removed) {
      return;
    }
    if (s.running) {
      s.rerun = true;
      return;
    }
    if (inFlight >= maxInFlight) {
      s.running = true;
      waiting.addLast(new Waiting(s, due));
      return;
    }
    launch(s, due);
  }

  private void launch(Slot s, long due) {
    inFlight++;
    s.running = true;
    long lagNanos = Math.max(0, now() - due);
    lag.record(lagNanos);
    metrics.probeScheduleLag(lagNanos);
    s.target
        .check()
        .run()
        .whenComplete(
            (r, e) -> {
              CheckResult result = e != null ? CheckResult.fail(0, "io", "check failed: " + e) : r;
              ts.execute(() -> complete(s, result));
            });
  }

  private void complete(Slot s, CheckResult r) {
    inFlight--;
    completed++;
    s.running = false;
    metrics.probeCheck(s.target.kind(), r.ok(), r.reason(), r.rttNanos());
    if (!s.removed) {
      handler.onResult(s.target, r);
    }
    while (inFlight < maxInFlight && !waiting.isEmpty()) {
      Waiting w = waiting.removeFirst();
      w.slot().running = false;
      if (!w.slot().removed) {
        launch(w.slot(), w.due());
      }
    }
    if (s.rerun && !s.removed) {
      s.rerun = false;
      fire(s, now());
    }
  }

  private long now() {
    return ts.ticker().nanoTime();
  }

  int inFlight() {
    return inFlight;
  }

  int queued() {
    return waiting.size();
  }

  long completed() {
    return completed;
  }

  int targets() {
    return slots.size();
  }

  ScheduleLag.Summary lag() {
    return lag.summary();
  }
}
