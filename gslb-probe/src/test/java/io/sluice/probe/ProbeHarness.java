package io.sluice.probe;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.testing.ManualTaskScheduler;
import io.sluice.probe.testing.RecordingAudit;
import io.sluice.probe.testing.RecordingMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A probe service on a manual clock over a config built from YAML text; the pool {@code p1} with
 * endpoint {@code a} on 127.0.0.1 is what the tests watch.
 */
final class ProbeHarness implements AutoCloseable {
  static final String ENDPOINT = "p1/a";

  final ManualTaskScheduler clock = new ManualTaskScheduler();
  final RecordingAudit audit = new RecordingAudit();
  final RecordingMetrics metrics = new RecordingMetrics();
  final SnapshotStore store;
  final ProbeService service;

  /** The verdict of {@link #ENDPOINT} in every snapshot published, by snapshot version. */
  final Map<Long, Verdict> verdictByVersion = new ConcurrentHashMap<>();

  ProbeHarness(Path stateDir, String probes, String health) throws Exception {
    this(stateDir, config(stateDir, probes, health));
  }

  ProbeHarness(Path stateDir, SluiceConfig config) {
    this(stateDir, config, OpinionExchange.NONE);
  }

  /** A node of a cluster sharing opinions through {@code exchange}. */
  ProbeHarness(Path stateDir, SluiceConfig config, OpinionExchange exchange) {
    store = new SnapshotStore(Snapshot.initial(config));
    record(store.current());
    store.addListener(this::record);
    service = ProbeService.start(store, audit, metrics, clock, new SplittableRandom(42), exchange);
    clock.busyWhile(() -> service.inFlight() > 0);
    clock.settle();
  }

  static SluiceConfig config(Path stateDir, String probes, String health) throws Exception {
    String yaml =
        "stateDir: "
            + stateDir
            + "\n"
            + "probes: "
            + probes
            + "\n"
            + "pools:\n"
            + "  p1:\n"
            + "    health: "
            + health
            + "\n"
            + "    endpoints:\n"
            + "      - { name: a, address: 127.0.0.1 }\n"
            + "  static:\n"
            + "    endpoints:\n"
            + "      - { name: s, address: 192.0.2.1 }\n"
            + "zones:\n"
            + "  - origin: example.com.\n"
            + "    soa: { mname: ns1.example.com., rname: hostmaster.example.com. }\n"
            + "    ns: [ns1.example.com.]\n"
            + "    services:\n"
            + "      - { name: app, pools: [p1, static] }\n";
    return ConfigLoader.parse(yaml, "test.yaml", stateDir);
  }

  private void record(Snapshot s) {
    EndpointHealth h = s.health().get(ENDPOINT);
    if (h != null) {
      verdictByVersion.put(s.version(), h.verdict());
    }
  }

  /** The lowest snapshot version that served {@code v} for {@link #ENDPOINT}. */
  long firstVersionWith(Verdict v) {
    return verdictByVersion.entrySet().stream()
        .filter(e -> e.getValue() == v)
        .mapToLong(Map.Entry::getKey)
        .min()
        .orElseThrow(() -> new AssertionError("no snapshot served " + v));
  }

  EndpointHealth health() {
    return store.current().health().get(ENDPOINT);
  }

  Verdict verdict() {
    return health().verdict();
  }

  void advance(Duration d) {
    clock.advance(d);
  }

  /** Advances in {@code step}s until the verdict is {@code v}; returns the simulated time taken. */
  Duration until(Verdict v, Duration step, Duration limit) {
    Duration spent = Duration.ZERO;
    while (verdict() != v) {
      if (spent.compareTo(limit) >= 0) {
        throw new AssertionError(
            "verdict still " + verdict() + " after " + spent + ": " + health().reason());
      }
      clock.advance(step);
      spent = spent.plus(step);
    }
    return spent;
  }

  @Override
  public void close() {
    service.close();
  }
}
