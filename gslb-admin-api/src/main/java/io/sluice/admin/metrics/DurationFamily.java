package io.sluice.admin.metrics;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Durations per label set, written as Micrometer writes a timer: {@code _count} and {@code _sum}
 * (seconds) in a summary family, and {@code _max} in a gauge family holding the largest duration of
 * the last two to three windows of 40 s. For rare events off the query path (rollbacks): a series
 * records under its own lock.
 */
final class DurationFamily {
  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(40);
  private static final int WINDOWS = 3;

  private final SeriesFamily summary;
  private final SeriesFamily max;

  /** {@code name} is the summary's name in seconds, without suffix. */
  DurationFamily(List<SeriesFamily> scraped, String name, String help, String... keys) {
    summary = new SeriesFamily(name, SeriesFamily.Type.SUMMARY, help, keys);
    max = new SeriesFamily(name + "_max", SeriesFamily.Type.GAUGE, help, keys);
    scraped.add(summary);
    scraped.add(max);
  }

  /** A new timer of label values {@code values} (in the order of the keys). */
  Timer timer(String... values) {
    Timer t = new Timer(summary.checked(values), summary.labelText(values));
    summary.add(t);
    max.computed(t::max, values);
    return t;
  }

  /** The durations of one label set; its summary series writes a count and a sum line. */
  static final class Timer extends SeriesFamily.Series {
    private long count;
    private long sumNanos;
    private final long[] maxNanos = new long[WINDOWS];
    private final long[] maxWindow = new long[WINDOWS];

    private Timer(String[] values, byte[] labels) {
      super(values, labels);
    }

    /** Records one duration of {@code nanos}. */
    synchronized void record(long nanos) {
      long v = Math.max(0, nanos);
      count++;
      sumNanos += v;
      long window = Math.floorDiv(System.nanoTime(), WINDOW_NANOS);
      int slot = Math.floorMod(window, WINDOWS);
      // A slot of an older window starts over; one of this window keeps the larger duration.
      if (maxWindow[slot] != window || maxNanos[slot] < v) {
        maxNanos[slot] = maxWindow[slot] == window ? Math.max(maxNanos[slot], v) : v;
        maxWindow[slot] = window;
      }
    }

    @Override
    synchronized double value() {
      return count;
    }

    private synchronized double max() {
      long current = Math.floorDiv(System.nanoTime(), WINDOW_NANOS);
      long best = 0;
      for (int i = 0; i < WINDOWS; i++) {
        if (current - maxWindow[i] < WINDOWS) {
          best = Math.max(best, maxNanos[i]);
        }
      }
      return best / 1e9;
    }

    @Override
    synchronized void write(ScrapeBuffer out, byte[] name) {
      out.write(name);
      out.ascii("_count");
      out.write(labels());
      out.write(' ');
      out.number(count);
      out.write('\n');
      out.write(name);
      out.ascii("_sum");
      out.write(labels());
      out.write(' ');
      out.number(sumNanos / 1e9);
      out.write('\n');
    }
  }
}
