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
 * later runs are every interval ±10%. On the regular schedule a target never runs twice at the same
 * time: a run that falls due while the check is running runs right after it.
 *
 * <p>Fast mode: {@link #recheck} puts a target in fast mode, in which a run is launched every fast
 * delay whether or not earlier runs have finished (up to a per-target limit in flight), so that
 * checks that time out are confirmed one delay apart instead of one timeout apart. Fast mode ends
 * with the first applied result of the target whose handler does not ask for another recheck.
 * Results are applied in launch order: a result that finishes after the result of a later-launched
 * run of the same target has been applied is stale and is dropped (still counted in metrics).
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

    /** Runs launched or waiting for an in-flight place, not yet completed. */
    int running;

    boolean rerun;
    boolean removed;
    int runs;
    boolean fast;
    TaskScheduler.Cancellable fastNext;
    long fastDelayNanos;
    int fastLimit;
    boolean recheckAsked;
    long launched;
    long applied;

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

  /**
   * A run that found every in-flight slot taken, with the time it was due and its launch number.
   */
  private record Waiting(Slot slot, long due, long seq) {}

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
      endFast(s);
    }
  }

  /**
   * Puts {@code t} in fast mode, or keeps it there: a run {@code firstNanos} from now (when not yet
   * in fast mode) and then every {@code delayNanos}, with at most {@code parallel} runs of {@code
   * t} in flight. Called from the result handler for {@code t}'s own result, it keeps fast mode
   * going; a result of {@code t} for which it is not called ends it.
   */
  void recheck(ProbeTarget t, long firstNanos, long delayNanos, int parallel) {
    Slot s = slots.get(t);
    if (s == null) {
      return;
    }
    s.recheckAsked = true;
    s.fastDelayNanos = delayNanos;
    s.fastLimit = Math.max(1, parallel);
    if (s.fast) {
      return;
    }
    s.fast = true;
    scheduleFast(s, now() + firstNanos);
  }

  private void scheduleFast(Slot s, long due) {
    if (s.fastNext != null) {
      s.fastNext.cancel();
    }
    s.fastNext =
        ts.schedule(
            () -> {
              s.fastNext = null;
              fireFast(s, due);
            },
            due - now());
  }

  private void fireFast(Slot s, long due) {
    if (s.removed || !s.fast) {
      return;
    }
    if (s.running >= s.fastLimit) {
      // The next fast run starts as soon as one finishes, and the cadence restarts from there.
      s.rerun = true;
      return;
    }
    start(s, due);
    scheduleFast(s, due + s.fastDelayNanos);
  }

  private void endFast(Slot s) {
    s.fast = false;
    s.rerun = false;
    if (s.fastNext != null) {
      s.fastNext.cancel();
      s.fastNext = null;
    }
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
              fireRegular(s, due);
            },
            due - now());
  }

  private void fireRegular(Slot s, long due) {
    if (s.removed) {
      return;
    }
    if (s.running > 0) {
      // In fast mode the fast runs already cover this one.
      if (!s.fast) {
        s.rerun = true;
      }
      return;
    }
    start(s, due);
  }

  private void start(Slot s, long due) {
    s.running++;
    long seq = ++s.launched;
    if (inFlight >= maxInFlight) {
      waiting.addLast(new Waiting(s, due, seq));
      return;
    }
    launch(s, due, seq);
  }

  private void launch(Slot s, long due, long seq) {
    inFlight++;
    long lagNanos = Math.max(0, now() - due);
    lag.record(lagNanos);
    metrics.probeScheduleLag(lagNanos);
    s.target
        .check()
        .run()
        .whenComplete(
            (r, e) -> {
              CheckResult result = e != null ? CheckResult.fail(0, "io", "check failed: " + e) : r;
              ts.execute(() -> complete(s, seq, result));
            });
  }

  private void complete(Slot s, long seq, CheckResult r) {
    inFlight--;
    completed++;
    s.running--;
    metrics.probeCheck(s.target.kind(), r.ok(), r.reason(), r.rttNanos());
    // A run started before the one last applied is stale: the later run is newer evidence.
    if (seq >= s.applied && !s.removed) {
      s.applied = seq;
      s.recheckAsked = false;
      handler.onResult(s.target, r);
      if (s.fast && !s.recheckAsked) {
        endFast(s);
      }
    }
    while (inFlight < maxInFlight && !waiting.isEmpty()) {
      Waiting w = waiting.removeFirst();
      if (w.slot().removed) {
        w.slot().running--;
      } else {
        launch(w.slot(), w.due(), w.seq());
      }
    }
    if (s.rerun && !s.removed) {
      s.rerun = false;
      if (s.fast) {
        fireFast(s, now());
      } else {
        fireRegular(s, now());
      }
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
