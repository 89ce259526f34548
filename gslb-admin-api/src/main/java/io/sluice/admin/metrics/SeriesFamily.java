package io.sluice.admin.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * One metric name with many label sets (a series per service, pool or endpoint), owned by Sluice
 * instead of Micrometer: a series is one small object holding its pre-escaped label text and its
 * value, and the family writes itself straight into the scrape in the Prometheus text format,
 * series sorted by label values as Micrometer's registry sorts them. At 10,000 services a
 * Micrometer meter per series cost about 250 bytes of heap in ids, tags and registry maps, and a
 * scrape built a snapshot object per series before writing it; here a scrape writes each series'
 * line from its cached label text.
 */
final class SeriesFamily {
  /** The Prometheus type of a family. */
  enum Type {
    COUNTER("counter"),
    GAUGE("gauge"),
    SUMMARY("summary");

    private final String wire;

    Type(String wire) {
      this.wire = wire;
    }
  }

  /** One series: its label values, their escaped text and a value read at scrape. */
  abstract static class Series {
    private final String[] values;
    private final byte[] labels;
    private volatile boolean removed;

    Series(String[] values, byte[] labels) {
      this.values = values;
      this.labels = labels;
    }

    /** The escaped label text in UTF-8, braces included (empty without labels). */
    byte[] labels() {
      return labels;
    }

    abstract double value();

    /** Writes the series' line(s) of the family {@code name}. */
    void write(ScrapeBuffer out, byte[] name) {
      out.write(name);
      out.write(labels);
      out.write(' ');
      out.number(value());
      out.write('\n');
    }
  }

  /**
   * A counter series: increments from any thread, summed at scrape. A thread that counts in it on
   * every query (a DNS event loop) takes a {@link Cell} of its own with {@link #cell} and counts
   * there with a plain store, where {@link #increment} is an atomic add on a shared cache line.
   */
  static final class Counter extends Series {
    private static final Cell[] NONE = new Cell[0];
    private static final VarHandle COUNT;

    static {
      try {
        COUNT = MethodHandles.lookup().findVarHandle(Counter.class, "count", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    /**
     * Increments of threads without a cell of their own, an atomic add each: they count rarely
     * (probes, the controller, the admin API), so a plain field costs a series 32 bytes less than a
     * LongAdder, and the threads that count on every query have their cells.
     */
    private volatile long count;

    /** The cells of the threads counting here, copied on write under this counter's lock. */
    private volatile Cell[] cells = NONE;

    Counter(String[] values, byte[] labels) {
      super(values, labels);
    }

    void increment() {
      COUNT.getAndAdd(this, 1L);
    }

    /** The calling thread's own cell of this counter, made on its first call. */
    Cell cell() {
      Thread me = Thread.currentThread();
      for (Cell c : cells) {
        if (c.owner == me) {
          return c;
        }
      }
      synchronized (this) {
        Cell mine = new Cell(me);
        List<Cell> next = new ArrayList<>(cells.length + 1);
        foldEnded(next);
        next.add(mine);
        cells = next.toArray(NONE);
        return mine;
      }
    }

    /**
     * Keeps in {@code into} the cells of threads still running and adds those of ended threads to
     * the shared count: they are written no more. Holds the lock, so that no reader sums a cell
     * twice or not at all while it moves.
     */
    private void foldEnded(List<Cell> into) {
      for (Cell c : cells) {
        if (c.owner.isAlive()) {
          into.add(c);
        } else {
          COUNT.getAndAdd(this, c.get());
        }
      }
    }

    synchronized long count() {
      Cell[] now = cells;
      long n = (long) COUNT.getVolatile(this);
      boolean ended = false;
      for (Cell c : now) {
        n += c.get();
        ended |= !c.owner.isAlive();
      }
      if (ended) {
        List<Cell> next = new ArrayList<>(now.length);
        foldEnded(next);
        cells = next.toArray(NONE);
      }
      return n;
    }

    @Override
    double value() {
      return count();
    }
  }

  /**
   * One thread's share of a {@link Counter}. Only its owner writes it, so an increment is a plain
   * read and an opaque store: no atomic instruction, and no cache line written by two threads.
   */
  static final class Cell {
    private static final VarHandle VALUE;

    static {
      try {
        VALUE = MethodHandles.lookup().findVarHandle(Cell.class, "value", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final Thread owner;
    private long value;

    private Cell(Thread owner) {
      this.owner = owner;
    }

    /** Counts one; only the thread that took the cell calls this. */
    void increment() {
      VALUE.setOpaque(this, value + 1);
    }

    long get() {
      return (long) VALUE.getOpaque(this);
    }
  }

  /** A gauge series holding the last value set. */
  static final class Gauge extends Series {
    private volatile double value;

    Gauge(String[] values, byte[] labels) {
      super(values, labels);
    }

    void set(double v) {
      value = v;
    }

    @Override
    double value() {
      return value;
    }
  }

  /** A gauge series computed at scrape. */
  static final class Computed extends Series {
    private final DoubleSupplier value;

    Computed(String[] values, byte[] labels, DoubleSupplier value) {
      super(values, labels);
      this.value = value;
    }

    @Override
    double value() {
      return value.getAsDouble();
    }
  }

  private static final Comparator<Series> BY_LABELS = (a, b) -> Arrays.compare(a.values, b.values);

  private final String name;
  private final byte[] nameBytes;
  private final byte[] header;
  private final String[] keys;

  /** Positions of the keys in the written order: Prometheus labels sorted by name. */
  private final int[] order;

  /** Every series added, removed ones included until the next write drops them. */
  private final List<Series> series = new ArrayList<>();

  private Series[] sorted = new Series[0];
  private boolean dirty;

  /** {@code name} is the full Prometheus name ({@code _total} included for a counter). */
  SeriesFamily(String name, Type type, String help, String... keys) {
    this.name = name;
    this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
    this.header =
        ("# HELP " + name + " " + escapeHelp(help) + "\n# TYPE " + name + " " + type.wire + "\n")
            .getBytes(StandardCharsets.UTF_8);
    this.keys = keys.clone();
    Integer[] idx = new Integer[keys.length];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = i;
    }
    Arrays.sort(idx, Comparator.comparing(i -> keys[i]));
    order = Arrays.stream(idx).mapToInt(Integer::intValue).toArray();
  }

  /** A new counter series of label values {@code values} (in the order of the keys). */
  Counter counter(String... values) {
    LabelSet l = labelSet(values);
    return add(new Counter(l.values, l.text));
  }

  /** A new settable gauge series. */
  Gauge gauge(String... values) {
    LabelSet l = labelSet(values);
    return add(new Gauge(l.values, l.text));
  }

  /** A new gauge series computed by {@code value} at each scrape. */
  Computed computed(DoubleSupplier value, String... values) {
    LabelSet l = labelSet(values);
    return add(new Computed(l.values, l.text, value));
  }

  /** Adds a series built with {@link #labelText} by a family of another kind of series. */
  synchronized <S extends Series> S add(S s) {
    series.add(s);
    dirty = true;
    return s;
  }

  /** Removes {@code s} from the output. */
  synchronized void remove(Series s) {
    s.removed = true;
    dirty = true;
  }

  /** Writes the family's HELP, TYPE and series lines; nothing without series, as Micrometer. */
  void writeTo(ScrapeBuffer out) {
    Series[] now;
    synchronized (this) {
      if (dirty) {
        series.removeIf(s -> s.removed);
        sorted = series.toArray(new Series[0]);
        Arrays.sort(sorted, BY_LABELS);
        dirty = false;
      }
      now = sorted;
    }
    if (now.length == 0) {
      return;
    }
    out.write(header);
    for (Series s : now) {
      s.write(out, nameBytes);
    }
  }

  /**
   * The label set last made on this thread, which the next series of another family with the same
   * keys and values shares: the state gauges and counters of one service are made one after the
   * other, about twenty of them labelled by the service alone, and one copy of their values and
   * label text saves about a kilobyte per service. One entry per thread: at most the last label set
   * a thread made outlives its series.
   */
  private record LabelSet(String[] keys, String[] values, byte[] text) {}

  private static final ThreadLocal<LabelSet> LAST = new ThreadLocal<>();

  private LabelSet labelSet(String[] values) {
    if (values.length != keys.length) {
      throw new IllegalArgumentException(name + " takes " + keys.length + " labels");
    }
    LabelSet last = LAST.get();
    if (last != null && Arrays.equals(last.keys, keys) && Arrays.equals(last.values, values)) {
      return last;
    }
    LabelSet made = new LabelSet(keys, values.clone(), labelTextOf(values));
    LAST.set(made);
    return made;
  }

  String[] checked(String[] values) {
    return labelSet(values).values;
  }

  byte[] labelText(String[] values) {
    return labelSet(values).text;
  }

  private byte[] labelTextOf(String[] values) {
    if (keys.length == 0) {
      return new byte[0];
    }
    StringBuilder b = new StringBuilder("{");
    for (int j = 0; j < order.length; j++) {
      int i = order[j];
      if (j > 0) {
        b.append(',');
      }
      b.append(keys[i]).append("=\"");
      escapeValue(b, values[i]);
      b.append('"');
    }
    return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Doubles as the Prometheus text writer formats them. */
  static String format(double d) {
    if (d == Double.POSITIVE_INFINITY) {
      return "+Inf";
    }
    if (d == Double.NEGATIVE_INFINITY) {
      return "-Inf";
    }
    return Double.toString(d);
  }

  private static void escapeValue(StringBuilder b, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> b.append("\\\\");
        case '"' -> b.append("\\\"");
        case '\n' -> b.append("\\n");
        default -> b.append(c);
      }
    }
  }

  private static String escapeHelp(String s) {
    return s.replace("\\", "\\\\").replace("\n", "\\n");
  }
}
