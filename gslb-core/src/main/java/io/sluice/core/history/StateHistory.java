package io.sluice.core.history;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.core.config.ObservabilityConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.PoolLoad;
import io.sluice.core.health.Verdict;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.state.TrafficState;
import io.sluice.core.store.Directories;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The bounded history of the states this node served, so that an answer can be explained after the
 * fact ({@code sluice ctl why}). Only the inputs of the policy chain that changed are recorded
 * ({@code history.jsonl} in the state directory, one JSON line per change): the configuration
 * version, the traffic state (plans, shifts, drains, freezes) and the health the chain reads
 * (verdicts, staleness, RTTs and pool loads; RTT and load changes alone at most once per {@code
 * rttInterval}). Kept to {@code maxEntries} changes and {@code maxAge}; it survives restarts.
 *
 * <p>Snapshot listeners only hand the published snapshot to the {@code sluice-history} thread,
 * which compares and writes: neither the query path nor the writers wait for the disk.
 */
public final class StateHistory implements AutoCloseable {
  /** The file's name in the state directory. */
  public static final String FILE = "history.jsonl";

  private static final System.Logger LOG = System.getLogger(StateHistory.class.getName());
  private static final ObjectMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  /** One state in force from {@code timeMillis} on. */
  public record Entry(
      long timeMillis,
      long snapshotVersion,
      long configVersion,
      TrafficState traffic,
      HealthView health) {}

  /** What the chain reads of one endpoint's health. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Health(Verdict verdict, boolean stale, Double rtt, Map<String, Double> rttFrom) {}

  /** What the chain reads of one pool's load. */
  record Load(double value, boolean stale) {}

  /** One line of the file: the fields that did not change since the previous line are absent. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Line(
      long t,
      long v,
      long config,
      TrafficState traffic,
      Map<String, Health> health,
      Map<String, Load> loads) {}

  private record Pending(long timeMillis, Snapshot snapshot, long configVersion) {}

  private final Path file;
  private final ObservabilityConfig.History settings;
  private final LongSupplier clock;
  private final LongSupplier configVersion;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>(4096);
  private final Thread thread;
  private volatile long dropped;
  // Owned by the history thread.
  private BufferedWriter out;
  private long lines;
  private Line last;
  private long lastTelemetry;

  private StateHistory(
      Path file,
      ObservabilityConfig.History settings,
      LongSupplier clock,
      LongSupplier configVersion) {
    this.file = file;
    this.settings = settings;
    this.clock = clock;
    this.configVersion = configVersion;
    this.thread = new Thread(this::run, "sluice-history");
    thread.setDaemon(true);
  }

  /**
   * Opens the history in {@code stateDir} (reading what an earlier run kept) and starts its thread;
   * {@code configVersion} tells the number of the configuration version being published (read on
   * the publishing thread, so it matches the snapshot).
   */
  public static StateHistory open(
      Path stateDir,
      ObservabilityConfig.History settings,
      LongSupplier clock,
      LongSupplier configVersion)
      throws IOException {
    StateHistory h = new StateHistory(stateDir.resolve(FILE), settings, clock, configVersion);
    h.load();
    h.out =
        Files.newBufferedWriter(
            h.file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    h.thread.start();
    return h;
  }

  /** Records the current snapshot of {@code store} and every one it publishes from now on. */
  public void follow(SnapshotStore store) {
    store.addListener(this::record);
    record(store.current());
  }

  /** Hands {@code s} to the history thread; never waits (a full queue drops and counts it). */
  public void record(Snapshot s) {
    if (!queue.offer(new Pending(clock.getAsLong(), s, configVersion.getAsLong()))) {
      dropped++;
    }
  }

  /** Snapshots not recorded because the history thread was behind. */
  public long dropped() {
    return dropped;
  }

  /** The state in force at {@code millis}: the last change at or before it, if still kept. */
  public synchronized Optional<Entry> at(long millis) {
    Entry found = null;
    for (Entry e : entries) {
      if (e.timeMillis() > millis) {
        break;
      }
      found = e;
    }
    return Optional.ofNullable(found);
  }

  /**
   * The earlier states as snapshots, their configurations read through {@code configs} (the one
   * serving now when it is the same version as {@code current}'s).
   */
  public PastStates over(PastStates.Configs configs) {
    return millis -> {
      Optional<Entry> e = at(millis);
      if (e.isEmpty()) {
        return Optional.empty();
      }
      Entry x = e.get();
      io.sluice.core.config.SluiceConfig config = configs.config(x.configVersion());
      Snapshot s =
          new Snapshot(
              x.snapshotVersion(),
              x.configVersion(),
              config,
              x.health(),
              x.traffic(),
              io.sluice.core.state.ConfigArtifacts.EMPTY);
      return Optional.of(
          new PastStates.PastState(x.timeMillis(), x.snapshotVersion(), x.configVersion(), s));
    };
  }

  /** Every change kept, oldest first. */
  public synchronized List<Entry> entries() {
    return List.copyOf(entries);
  }

  /** Returns once everything handed over so far is written (tests, shutdown). */
  public void flush() throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    queue.put(done);
    done.await(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    try {
      flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    thread.interrupt();
    try {
      thread.join(5000);
      out.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot close " + file + ": " + e);
    }
  }

  private void run() {
    while (true) {
      Object item;
      try {
        item = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        if (item instanceof Pending p) {
          append(p);
          if (queue.isEmpty()) {
            out.flush();
          }
        } else if (item instanceof CountDownLatch l) {
          out.flush();
          l.countDown();
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "history not written to " + file + ": " + e);
      }
    }
  }

  /** Writes a line for {@code p} when something the chain reads changed. */
  private void append(Pending p) throws IOException {
    Snapshot s = p.snapshot();
    Map<String, Health> health = health(s.health());
    Map<String, Load> loads = loads(s.health());
    Line full =
        new Line(p.timeMillis(), s.version(), p.configVersion(), s.traffic(), health, loads);
    if (last != null) {
      boolean config = last.config() != full.config();
      boolean traffic = !last.traffic().equals(full.traffic());
      boolean verdicts = !verdicts(last.health()).equals(verdicts(health));
      boolean telemetry = !last.health().equals(health) || !last.loads().equals(loads);
      boolean telemetryDue =
          telemetry && p.timeMillis() - lastTelemetry >= settings.rttInterval().toMillis();
      if (!config && !traffic && !verdicts && !telemetryDue) {
        return;
      }
      boolean healthChanged = verdicts || telemetryDue;
      write(
          new Line(
              full.t(),
              full.v(),
              full.config(),
              traffic ? full.traffic() : null,
              healthChanged && !last.health().equals(health) ? health : null,
              healthChanged && !last.loads().equals(loads) ? loads : null));
      if (healthChanged) {
        lastTelemetry = p.timeMillis();
      }
    } else {
      write(full);
      lastTelemetry = p.timeMillis();
    }
    last = full;
    keep(entry(full));
  }

  private void write(Line line) throws IOException {
    out.write(JSON.writeValueAsString(line));
    out.write('\n');
    lines++;
    if (lines > 2L * settings.maxEntries()) {
      compact();
    }
  }

  /** Rewrites the file with the entries kept, the first one whole. */
  private void compact() throws IOException {
    out.flush();
    List<Entry> kept = entries();
    Path tmp = file.resolveSibling(FILE + ".tmp");
    try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
      Line prev = null;
      for (Entry e : kept) {
        Line l = line(e);
        Line written =
            prev == null
                ? l
                : new Line(
                    l.t(),
                    l.v(),
                    l.config(),
                    prev.traffic().equals(l.traffic()) ? null : l.traffic(),
                    prev.health().equals(l.health()) ? null : l.health(),
                    prev.loads().equals(l.loads()) ? null : l.loads());
        w.write(JSON.writeValueAsString(written));
        w.write('\n');
        prev = l;
      }
    }
    out.close();
    // On disk before it replaces the file, and the rename on disk after: a crash mid-compaction
    // must leave the old history or the new one, never a renamed file whose data was not written.
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Directories.fsync(file.getParent());
    out =
        Files.newBufferedWriter(
            file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    lines = kept.size();
  }

  private synchronized void keep(Entry e) {
    entries.addLast(e);
    long oldest = e.timeMillis() - settings.maxAge().toMillis();
    // The entry in force at the oldest time kept stays, so that time can still be explained.
    while (entries.size() > settings.maxEntries() || entries.size() > 1 && secondTime() <= oldest) {
      entries.removeFirst();
    }
  }

  private long secondTime() {
    Iterator<Entry> it = entries.iterator();
    it.next();
    return it.next().timeMillis();
  }

  /** Reads what an earlier run kept; a torn or unreadable line ends the reading there. */
  private void load() throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    Line prev = null;
    long now = clock.getAsLong();
    List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (String text : all) {
      Line l;
      try {
        l = JSON.readValue(text, Line.class);
      } catch (IOException | UncheckedIOException e) {
        LOG.log(System.Logger.Level.WARNING, file + ": unreadable line ignored: " + e);
        continue;
      }
      if (prev == null && (l.traffic() == null || l.health() == null)) {
        continue;
      }
      Line whole =
          prev == null
              ? new Line(l.t(), l.v(), l.config(), l.traffic(), l.health(), orEmpty(l.loads()))
              : new Line(
                  l.t(),
                  l.v(),
                  l.config(),
                  l.traffic() != null ? l.traffic() : prev.traffic(),
                  l.health() != null ? l.health() : prev.health(),
                  l.loads() != null ? l.loads() : prev.loads());
      prev = whole;
      entries.addLast(entry(whole));
    }
    last = prev;
    lines = all.size();
    lastTelemetry = prev == null ? 0 : prev.t();
    if (!entries.isEmpty()) {
      keep(entries.removeLast());
    }
    LOG.log(System.Logger.Level.DEBUG, "history: " + entries.size() + " states kept at " + now);
  }

  private static <K, V> Map<K, V> orEmpty(Map<K, V> m) {
    return m == null ? Map.of() : m;
  }

  private static Map<String, Verdict> verdicts(Map<String, Health> health) {
    Map<String, Verdict> out = new HashMap<>();
    health.forEach((k, h) -> out.put(k, h.stale() ? null : h.verdict()));
    return out;
  }

  private static Map<String, Health> health(HealthView v) {
    Map<String, Health> out = new TreeMap<>();
    v.all()
        .forEach(
            (k, h) -> {
              Map<String, Double> from = new TreeMap<>();
              h.regionRttMillis().forEach((r, x) -> from.put(r, round(x)));
              out.put(
                  k,
                  new Health(
                      h.verdict(),
                      h.stale(),
                      Double.isNaN(h.rttP50Millis()) ? null : round(h.rttP50Millis()),
                      from.isEmpty() ? null : from));
            });
    return out;
  }

  private static Map<String, Load> loads(HealthView v) {
    Map<String, Load> out = new TreeMap<>();
    v.poolLoads().forEach((k, l) -> out.put(k, new Load(Math.round(l.value()), l.stale())));
    return out;
  }

  /** Whole milliseconds: finer RTT changes would not be worth a line. */
  private static double round(double millis) {
    return Math.round(millis);
  }

  private static Entry entry(Line l) {
    Map<String, EndpointHealth> byEndpoint = new HashMap<>();
    l.health()
        .forEach(
            (k, h) ->
                byEndpoint.put(
                    k,
                    new EndpointHealth(
                        h.verdict(),
                        0,
                        "",
                        h.stale(),
                        h.rtt() == null ? Double.NaN : h.rtt(),
                        Double.NaN,
                        0,
                        0,
                        0,
                        h.rttFrom())));
    Map<String, PoolLoad> loads = new HashMap<>();
    l.loads()
        .forEach(
            (k, x) -> loads.put(k, new PoolLoad(x.value(), 0, PoolLoad.Source.PUSH, x.stale())));
    HealthView view = HealthView.of(byEndpoint, l.v()).withPoolLoadReadings(loads);
    return new Entry(l.t(), l.v(), l.config(), l.traffic(), view);
  }

  private static Line line(Entry e) {
    return new Line(
        e.timeMillis(),
        e.snapshotVersion(),
        e.configVersion(),
        e.traffic(),
        health(e.health()),
        loads(e.health()));
  }

  /** A copy of {@code entries} (tests). */
  List<Entry> snapshotOfEntries() {
    return new ArrayList<>(entries());
  }
}
