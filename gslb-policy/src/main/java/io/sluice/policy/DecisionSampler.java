package io.sluice.policy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.core.config.ObservabilityConfig;
import io.sluice.core.sample.SampleRing;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.ShadowReporter;
import io.sluice.core.state.Snapshot;
import io.sluice.policy.topology.ClientTopology;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the answers the query path sampled (a bounded lock-free ring: a full ring drops the sample,
 * the query never waits) and, on its own {@code sluice-decisions} thread, evaluates the service's
 * shadow chain for the same client on the same snapshot and counts how the candidate differs, and
 * writes the sampled decision log. Nothing here runs on an event loop.
 */
final class DecisionSampler implements ShadowReporter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DecisionSampler.class);
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  // Distinct differing clients are counted up to this many per region, so memory stays bounded.
  private static final int MAX_CLIENTS = 100_000;

  /** One sampled answer, as the query path saw it. */
  record Sample(
      Snapshot snapshot,
      PolicyPlanner.Live live,
      ServiceState state,
      int family,
      ClientInfo client,
      Decision decision,
      long timeMillis,
      boolean shadow,
      boolean log) {}

  /** Evaluates a chain for one client without counting it as served. */
  interface Decider {
    Decision decide(PolicyPlanner.Live l, ServiceState st, int family, ClientInfo client);
  }

  private final SampleRing<Sample> ring = new SampleRing<>(4096);
  private final Decider decider;
  private final AtomicLong processed = new AtomicLong();
  private final Map<String, Stats> stats = new ConcurrentHashMap<>();
  private volatile Thread thread;
  private volatile boolean closed;
  // Owned by the sampler thread.
  private final Map<String, ShadowState> shadowStates = new HashMap<>();
  private DecisionLog log;

  DecisionSampler(Decider decider) {
    this.decider = decider;
  }

  /** Starts the thread the first time a configuration samples anything (a writer thread). */
  synchronized void start() {
    if (thread == null && !closed) {
      Thread t = new Thread(this::run, "sluice-decisions");
      t.setDaemon(true);
      t.start();
      thread = t;
    }
  }

  /** On the query path: hands the sample over or drops it; never blocks. */
  void offer(Sample s) {
    if (thread != null) {
      ring.offer(s);
    }
  }

  /** Samples dropped because this thread was behind. */
  long dropped() {
    return ring.dropped();
  }

  /** Waits until every sample offered so far was handled (tests and shutdown). */
  void awaitIdle() {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (processed.get() + ring.dropped() < ring.offered() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(1_000_000);
    }
    DecisionLog l = log;
    if (l != null) {
      l.flush();
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
      try {
        t.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (log != null) {
      log.close();
    }
  }

  private void run() {
    while (!closed && !Thread.currentThread().isInterrupted()) {
      int n;
      try {
        n = ring.drain(this::handle, 512);
      } catch (RuntimeException e) {
        LOG.warn("decision sample not handled: {}", e.toString());
        n = 1;
      }
      if (n == 0) {
        if (log != null) {
          log.flush();
        }
        LockSupport.parkNanos(10_000_000);
      }
    }
  }

  private void handle(Sample s) {
    try {
      Decision candidate = s.shadow() ? shadow(s) : null;
      if (s.log()) {
        log(s, candidate);
      }
    } finally {
      processed.incrementAndGet();
    }
  }

  // ---- shadow ----

  /** The shadow chain's state for one live state (derived again when health or traffic change). */
  private record ShadowState(PolicyPlanner.Live live, ServiceState state) {}

  private Decision shadow(Sample s) {
    CompiledConfig c = s.live().compiled();
    String fqdn = s.state().service().fqdn();
    CompiledService candidate = c.shadows().get(fqdn);
    if (candidate == null) {
      return null;
    }
    ShadowState ss = shadowStates.get(fqdn);
    if (ss == null || ss.live() != s.live()) {
      ss = new ShadowState(s.live(), new ServiceState(candidate, c, s.snapshot()));
      shadowStates.put(fqdn, ss);
    }
    Decision d = decider.decide(s.live(), ss.state(), s.family(), s.client());
    int region = ClientTopology.region(c.topology().locate(s.client().address()));
    Stats st = stats.get(fqdn);
    if (st == null || st.candidate != candidate) {
      st = new Stats(candidate, s.state().service(), c, s.timeMillis());
      stats.put(fqdn, st);
    }
    st.add(region, s.decision(), d, PolicyPlanner.clientHash(s.client()));
    return d;
  }

  @Override
  public Optional<ShadowReport> shadow(String service) {
    Stats st = stats.get(service);
    return st == null ? Optional.empty() : Optional.of(st.report(ring.dropped()));
  }

  /** Clears the counts of {@code service} when its configuration no longer has a shadow. */
  void retain(CompiledConfig c) {
    stats.keySet().removeIf(s -> c.shadows().get(s) != stats.get(s).candidate);
  }

  /** The counts of one service's candidate since its configuration was published. */
  private static final class Stats {
    final CompiledService candidate;
    final CompiledService live;
    final CompiledConfig compiled;
    final long since;
    // Index: the client region, the last one for clients without one. Written by the sampler
    // thread, read by report(): a report may see one sample half counted, which is harmless.
    final long[] sampled;
    final long[] differing;
    final long[][] nearest; // [0 live, 1 candidate][region]
    final long[][] cross;
    final List<Set<Long>> clients = new ArrayList<>();

    Stats(CompiledService candidate, CompiledService live, CompiledConfig c, long since) {
      this.candidate = candidate;
      this.live = live;
      this.compiled = c;
      this.since = since;
      int n = c.regions().size() + 1;
      sampled = new long[n];
      differing = new long[n];
      nearest = new long[2][n];
      cross = new long[2][n];
      for (int i = 0; i < n; i++) {
        clients.add(new HashSet<>());
      }
    }

    synchronized void add(int region, Decision live, Decision cand, long client) {
      int r = Math.min(region, sampled.length - 1);
      sampled[r]++;
      if (!new HashSet<>(live.pools()).equals(new HashSet<>(cand.pools()))) {
        differing[r]++;
        if (clients.get(r).size() < MAX_CLIENTS) {
          clients.get(r).add(client);
        }
      }
      count(0, r, live);
      count(1, r, cand);
    }

    private void count(int which, int r, Decision d) {
      if (d.pools().isEmpty() || r >= compiled.regions().size()) {
        return;
      }
      boolean allHere = true;
      for (String pool : d.pools()) {
        int p = live.pools().names().indexOf(pool);
        allHere &= p >= 0 && live.pools().regions()[p] == r;
      }
      if (allHere) {
        nearest[which][r]++;
      } else {
        cross[which][r]++;
      }
    }

    synchronized ShadowReport report(long dropped) {
      List<RegionReport> regions = new ArrayList<>();
      int n = sampled.length;
      long[] total = new long[7];
      for (int r = 0; r < n; r++) {
        if (sampled[r] == 0) {
          continue;
        }
        regions.add(region(r < n - 1 ? compiled.regions().name(r) : "(none)", r));
        total[0] += sampled[r];
        total[1] += differing[r];
        total[2] += clients.get(r).size();
        total[3] += nearest[0][r];
        total[4] += nearest[1][r];
        total[5] += cross[0][r];
        total[6] += cross[1][r];
      }
      RegionReport all =
          new RegionReport(
              "all",
              total[0],
              total[1],
              total[2],
              ratio(total[3], total[0]),
              ratio(total[4], total[0]),
              ratio(total[5], total[0]),
              ratio(total[6], total[0]));
      return new ShadowReport(
          live.fqdn(),
          live.config().chain(),
          candidate.config().chain(),
          live.config().shadow() == null ? 0 : live.config().shadow().sample(),
          since,
          all,
          regions,
          dropped);
    }

    private RegionReport region(String name, int r) {
      return new RegionReport(
          name,
          sampled[r],
          differing[r],
          clients.get(r).size(),
          ratio(nearest[0][r], sampled[r]),
          ratio(nearest[1][r], sampled[r]),
          ratio(cross[0][r], sampled[r]),
          ratio(cross[1][r], sampled[r]));
    }

    private static double ratio(long part, long whole) {
      return whole == 0 ? 0 : Math.round(part * 10_000.0 / whole) / 10_000.0;
    }
  }

  // ---- decision log ----

  private void log(Sample s, Decision candidate) {
    ObservabilityConfig.DecisionLog settings =
        s.live().compiled().config().observability().decisionLog();
    if (!settings.enabled()) {
      return;
    }
    Path file = s.live().compiled().config().stateDirectory().resolve(settings.file());
    if (log == null || !log.file.equals(file) || !log.settings.equals(settings)) {
      if (log != null) {
        log.close();
      }
      log = new DecisionLog(file, settings);
    }
    CompiledConfig c = s.live().compiled();
    int region = ClientTopology.region(c.topology().locate(s.client().address()));
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("time", Instant.ofEpochMilli(s.timeMillis()).toString());
    line.put("service", s.state().service().fqdn());
    line.put("type", s.family() == 0 ? "A" : "AAAA");
    line.put("client", address(s.client().address()) + "/" + s.client().sourcePrefix());
    line.put("ecs", s.client().fromEcs());
    line.put("region", c.regions().name(region));
    line.put("outcome", s.decision().outcome().name().toLowerCase(Locale.ROOT));
    line.put("pools", s.decision().pools());
    List<String> addresses = new ArrayList<>();
    for (byte[] a : s.decision().addresses()) {
      addresses.add(address(a));
    }
    line.put("addresses", addresses);
    if (s.decision().cname() != null) {
      line.put("cname", s.decision().cname());
    }
    line.put("ttl", s.decision().ttl());
    line.put("scope", s.decision().scopePrefix());
    line.put("snapshotVersion", s.snapshot().version());
    if (candidate != null) {
      line.put("shadowPools", candidate.pools());
    }
    try {
      log.write(JSON.writeValueAsString(line));
    } catch (IOException e) {
      LOG.warn("decision log not written: {}", e.toString());
    }
  }

  private static String address(byte[] a) {
    try {
      return InetAddress.getByAddress(a).getHostAddress();
    } catch (UnknownHostException e) {
      return "invalid";
    }
  }

  /** The JSON-lines file, rotated by size: {@code file.1} is the newest old one. */
  private static final class DecisionLog {
    final Path file;
    final ObservabilityConfig.DecisionLog settings;
    private BufferedWriter out;
    private long bytes;

    DecisionLog(Path file, ObservabilityConfig.DecisionLog settings) {
      this.file = file;
      this.settings = settings;
    }

    void write(String line) throws IOException {
      if (out == null) {
        Files.createDirectories(file.toAbsolutePath().getParent());
        bytes = Files.exists(file) ? Files.size(file) : 0;
        out =
            Files.newBufferedWriter(
                file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
      byte[] b = line.getBytes(StandardCharsets.UTF_8);
      if (bytes > 0 && bytes + b.length + 1 > settings.maxBytes()) {
        rotate();
      }
      out.write(line);
      out.write('\n');
      bytes += b.length + 1;
    }

    private void rotate() throws IOException {
      out.close();
      int keep = settings.keep();
      if (keep == 0) {
        Files.delete(file);
      } else {
        Files.deleteIfExists(old(keep));
        for (int i = keep - 1; i >= 1; i--) {
          if (Files.exists(old(i))) {
            Files.move(old(i), old(i + 1), StandardCopyOption.REPLACE_EXISTING);
          }
        }
        Files.move(file, old(1), StandardCopyOption.REPLACE_EXISTING);
      }
      out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      bytes = 0;
    }

    private Path old(int i) {
      return file.resolveSibling(file.getFileName() + "." + i);
    }

    void flush() {
      try {
        if (out != null) {
          out.flush();
        }
      } catch (IOException e) {
        LOG.warn("decision log not flushed: {}", e.toString());
      }
    }

    void close() {
      try {
        if (out != null) {
          out.close();
        }
      } catch (IOException e) {
        LOG.warn("decision log not closed: {}", e.toString());
      }
    }
  }
}
