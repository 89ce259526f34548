package io.sluice.admin.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.core.spi.DnsQueryLabels;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The per-query DNS meters: {@code sluice_dns_requests_total} (by zone, query type, rcode and
 * transport) and the {@code sluice_dns_request_duration_seconds} histogram (by transport, with its
 * {@code _max} gauge). The DNS event loops record every query, so the counts live in plain {@code
 * long} arrays owned by the recording thread and are summed when scraped: recording is a
 * thread-local read, a few array reads and single-writer stores, with no atomic instruction, no
 * shared map look-up and no cache line written by two event loops. The sums are exact: a scrape
 * reads every recording thread's cells, and the cells of a thread that has ended are folded into a
 * retired total first, under the scrape lock.
 */
final class DnsQueryMeters implements MultiCollector {
  private static final String DURATION = "sluice_dns_request_duration_seconds";
  private static final String DURATION_HELP = "Time from a decoded query to its encoded answer";

  /** Upper bounds of the duration buckets: the answer path is expected in microseconds. */
  private static final long[] BOUNDS_NANOS = {
    25_000,
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    25_000_000,
    100_000_000,
    1_000_000_000
  };

  private static final double[] BOUNDS_SECONDS = new double[BOUNDS_NANOS.length + 1];

  static {
    for (int i = 0; i < BOUNDS_NANOS.length; i++) {
      BOUNDS_SECONDS[i] = BOUNDS_NANOS[i] / 1e9;
    }
    BOUNDS_SECONDS[BOUNDS_NANOS.length] = Double.POSITIVE_INFINITY;
  }

  /**
   * The {@code _max} gauge reports the largest duration of the last two to three windows of 40 s,
   * as Micrometer's timers do (a two-minute expiry over three buffers).
   */
  private static final long MAX_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(40);

  private static final int MAX_WINDOWS = 3;

  /** A max cell packs the window number (low 20 bits) above the duration (44 bits of ns). */
  private static final int MAX_SHIFT = 44;

  private static final long MAX_NANOS = (1L << MAX_SHIFT) - 1;
  private static final long WINDOW_MASK = (1L << (64 - MAX_SHIFT)) - 1;

  private static final int QTYPES = DnsQueryLabels.QTYPES.size();
  private static final int RCODES = DnsQueryLabels.RCODES.size();
  private static final int ROWS = 2 * QTYPES;
  private static final String[] TRANSPORTS = {"udp", "tcp"};

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle ROWS_OF = MethodHandles.arrayElementVarHandle(long[][].class);

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Zone> zones = new ConcurrentHashMap<>();
  private final ThreadLocal<Recorder> recorders = ThreadLocal.withInitial(this::newRecorder);

  /** Every recording thread's cells; guarded by itself, as is {@link #retired}. */
  private final List<Recorder> live = new ArrayList<>();

  private final Recorder retired = new Recorder(null);

  DnsQueryMeters(MeterRegistry registry, PrometheusRegistry prometheus) {
    this.registry = registry;
    prometheus.register(this);
  }

  /** Counts one query in the calling thread's cells; {@code endNanoTime} is when it ended. */
  void record(String zone, int qtype, int rcode, boolean tcp, long nanos, long endNanoTime) {
    Recorder r = recorders.get();
    String z = zone == null ? "" : zone;
    ZoneRows rows = r.lastZone == z ? r.lastRows : r.rows(z);
    int row = (tcp ? QTYPES : 0) + DnsQueryLabels.qtypeIndex(qtype);
    long[] cells = (long[]) ROWS_OF.getAcquire(rows.rows, row);
    if (cells == null) {
      cells = new long[RCODES];
      ROWS_OF.setRelease(rows.rows, row, cells);
    }
    int rc = DnsQueryLabels.rcodeIndex(rcode);
    long n = cells[rc];
    LONGS.setOpaque(cells, rc, n + 1);
    if (n == 0) {
      // This thread's first query of the series; the series may be new to the registry too.
      rows.zone.register(row, rc);
    }
    r.time(tcp ? 1 : 0, nanos, endNanoTime);
  }

  private Recorder newRecorder() {
    Recorder r = new Recorder(Thread.currentThread());
    synchronized (live) {
      retireEnded();
      live.add(r);
    }
    return r;
  }

  /** Folds the cells of threads that have ended into {@link #retired}; holds the lock. */
  private void retireEnded() {
    for (Iterator<Recorder> it = live.iterator(); it.hasNext(); ) {
      Recorder r = it.next();
      if (!r.owner.isAlive()) {
        retired.absorb(r);
        for (Zone z : zones.values()) {
          z.retire(r);
        }
        it.remove();
      }
    }
  }

  @Override
  public MetricSnapshots collect() {
    long now = System.nanoTime();
    HistogramSnapshot.Builder histogram = HistogramSnapshot.builder().name(DURATION);
    histogram.help(DURATION_HELP);
    GaugeSnapshot.Builder max = GaugeSnapshot.builder().name(DURATION + "_max");
    max.help(DURATION_HELP);
    synchronized (live) {
      retireEnded();
      for (int t = 0; t < TRANSPORTS.length; t++) {
        long[] counts = new long[BOUNDS_SECONDS.length];
        long sum = retired.sums[t];
        long biggest = 0;
        retired.addCounts(t, counts);
        for (Recorder r : live) {
          r.addCounts(t, counts);
          sum += (long) LONGS.getOpaque(r.sums, t);
          biggest = Math.max(biggest, r.max(t, now));
        }
        biggest = Math.max(biggest, retired.max(t, now));
        Labels labels = Labels.of("transport", TRANSPORTS[t]);
        histogram.dataPoint(
            HistogramSnapshot.HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(BOUNDS_SECONDS, counts))
                .sum(sum / 1e9)
                .labels(labels)
                .build());
        max.dataPoint(new GaugeSnapshot.GaugeDataPointSnapshot(biggest / 1e9, labels, null));
      }
    }
    return MetricSnapshots.of(histogram.build(), max.build());
  }

  /** One thread's cells. Only the owner writes them; the scrape reads them. */
  private final class Recorder {
    final Thread owner;

    /** Per transport: a count per duration bucket, the sum of durations, the max windows. */
    final long[][] buckets = new long[2][BOUNDS_SECONDS.length];

    final long[] sums = new long[2];
    final long[][] maxima = new long[2][MAX_WINDOWS];

    /** The owner's rows by zone; only the owner reads this map. */
    final Map<String, ZoneRows> byZone = new HashMap<>();

    String lastZone;
    ZoneRows lastRows;

    Recorder(Thread owner) {
      this.owner = owner;
    }

    ZoneRows rows(String zone) {
      ZoneRows rows = byZone.get(zone);
      if (rows == null) {
        rows = zones.computeIfAbsent(zone, Zone::new).rowsFor(this);
        byZone.put(zone, rows);
      }
      lastZone = zone;
      lastRows = rows;
      return rows;
    }

    void time(int t, long nanos, long end) {
      int b = 0;
      while (b < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[b]) {
        b++;
      }
      long[] counts = buckets[t];
      LONGS.setOpaque(counts, b, counts[b] + 1);
      LONGS.setOpaque(sums, t, sums[t] + nanos);
      long window = Math.floorDiv(end, MAX_WINDOW_NANOS) & WINDOW_MASK;
      long[] m = maxima[t];
      int slot = (int) (window % MAX_WINDOWS);
      long cell = m[slot];
      long v = Math.min(Math.max(nanos, 0), MAX_NANOS);
      // A cell of an older window starts over; one of this window keeps the larger duration.
      if ((cell >>> MAX_SHIFT) != window || (cell & MAX_NANOS) < v) {
        LONGS.setOpaque(m, slot, window << MAX_SHIFT | v);
      }
    }

    void addCounts(int t, long[] into) {
      for (int b = 0; b < into.length; b++) {
        into[b] += (long) LONGS.getOpaque(buckets[t], b);
      }
    }

    /** The largest duration recorded in the windows still current at {@code now}. */
    long max(int t, long now) {
      long current = Math.floorDiv(now, MAX_WINDOW_NANOS) & WINDOW_MASK;
      long best = 0;
      for (int i = 0; i < MAX_WINDOWS; i++) {
        long cell = (long) LONGS.getOpaque(maxima[t], i);
        long age = (current - (cell >>> MAX_SHIFT)) & WINDOW_MASK;
        if (cell != 0 && age < MAX_WINDOWS) {
          best = Math.max(best, cell & MAX_NANOS);
        }
      }
      return best;
    }

    /** Adds an ended thread's histogram cells to these; the caller holds the lock. */
    void absorb(Recorder ended) {
      for (int t = 0; t < 2; t++) {
        ended.addCounts(t, buckets[t]);
        sums[t] += ended.sums[t];
        for (int i = 0; i < MAX_WINDOWS; i++) {
          // Both cells of a slot belong to windows a multiple of MAX_WINDOWS apart: the later
          // window wins, or the larger duration within one window.
          long theirs = ended.maxima[t][i];
          long mine = maxima[t][i];
          long ahead = ((theirs >>> MAX_SHIFT) - (mine >>> MAX_SHIFT)) & WINDOW_MASK;
          if (mine == 0
              || (ahead != 0 && ahead < WINDOW_MASK / 2)
              || (ahead == 0 && theirs > mine)) {
            maxima[t][i] = theirs;
          }
        }
      }
    }
  }

  /** One thread's request counts of one zone: a row of rcode cells per transport and qtype. */
  private record ZoneRows(Zone zone, Recorder owner, long[][] rows) {}

  /** The request counters of one zone: every thread's rows, and the folded rows of ended ones. */
  private final class Zone {
    final String name;
    final AtomicReferenceArray<FunctionCounter> counters =
        new AtomicReferenceArray<>(ROWS * RCODES);

    /** Guarded by {@link #live}'s lock. */
    final List<ZoneRows> threads = new ArrayList<>();

    final long[] retiredCounts = new long[ROWS * RCODES];

    Zone(String name) {
      this.name = name;
    }

    ZoneRows rowsFor(Recorder r) {
      ZoneRows rows = new ZoneRows(this, r, new long[ROWS][]);
      synchronized (live) {
        threads.add(rows);
      }
      return rows;
    }

    void retire(Recorder ended) {
      for (Iterator<ZoneRows> it = threads.iterator(); it.hasNext(); ) {
        ZoneRows rows = it.next();
        if (rows.owner == ended) {
          for (int row = 0; row < ROWS; row++) {
            long[] cells = rows.rows[row];
            for (int rc = 0; cells != null && rc < RCODES; rc++) {
              retiredCounts[row * RCODES + rc] += cells[rc];
            }
          }
          it.remove();
        }
      }
    }

    double count(int cell) {
      int row = cell / RCODES;
      int rc = cell % RCODES;
      synchronized (live) {
        retireEnded();
        long n = retiredCounts[cell];
        for (ZoneRows rows : threads) {
          long[] cells = (long[]) ROWS_OF.getAcquire(rows.rows, row);
          if (cells != null) {
            n += (long) LONGS.getOpaque(cells, rc);
          }
        }
        return n;
      }
    }

    /** Registers the series of one cell the first time any thread counts into it. */
    void register(int row, int rc) {
      int cell = row * RCODES + rc;
      if (counters.get(cell) != null) {
        return;
      }
      int q = row % QTYPES;
      FunctionCounter c =
          FunctionCounter.builder("sluice.dns.requests", this, z -> z.count(cell))
              .description("DNS queries answered, by zone, query type, rcode and transport")
              .tags(
                  "zone",
                  name,
                  "qtype",
                  DnsQueryLabels.QTYPES.get(q),
                  "rcode",
                  DnsQueryLabels.RCODES.get(rc),
                  "transport",
                  TRANSPORTS[row / QTYPES])
              .register(registry);
      // Registering the same name and tags twice returns the same counter, so a race is harmless.
      counters.lazySet(cell, c);
    }
  }
}
