package io.sluice.core.traffic;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Leadership;
import io.sluice.core.spi.ShareEstimator;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.DiskWrites;
import io.sluice.core.testing.ManualTicker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One service ({@code app.example.com.}, TTL 60) over pools {@code primary} (two endpoints) and
 * {@code standby} (one), a manual clock and a traffic system driven by explicit ticks.
 */
final class TrafficFixture implements AutoCloseable {
  static final String APP = "app.example.com.";

  final ManualTicker ticker = new ManualTicker();
  final SnapshotStore store;
  final Path dir;
  final RecordingMetrics metrics = new RecordingMetrics();
  final ExternalMetric external;
  final Leadership leadership;

  /** Per pool, the share of new check results that fail, when it differs from the error rate. */
  final Map<String, Double> failing = new ConcurrentHashMap<>();

  TrafficSystem system;

  /** Metrics that remember the last value per service. */
  static final class RecordingMetrics implements GslbMetrics {
    final Map<String, Double> lastStep = new ConcurrentHashMap<>();
    volatile long rollbacks;

    @Override
    public void rampStep(String service, double percent) {
      lastStep.put(service, percent);
    }

    @Override
    public void rollback(String service, long nanos) {
      rollbacks++;
    }
  }

  TrafficFixture(Path dir, String traffic) throws Exception {
    this(dir, traffic, g -> 0.0);
  }

  TrafficFixture(Path dir, String traffic, ExternalMetric external) throws Exception {
    this(dir, traffic, external, Leadership.ALWAYS);
  }

  TrafficFixture(Path dir, String traffic, ExternalMetric external, Leadership leadership)
      throws Exception {
    this.dir = dir;
    this.external = external;
    this.leadership = leadership;
    this.store = new SnapshotStore(Snapshot.initial(config(traffic)));
    open();
  }

  static SluiceConfig config(String traffic) throws Exception {
    String yaml =
        """
        regions: { eu: {}, us: {} }
        pools:
          primary:
            region: eu
            endpoints:
              - { name: a, address: 192.0.2.1 }
              - { name: b, address: 192.0.2.2 }
          standby:
            region: us
            endpoints:
              - { name: a, address: 198.51.100.1 }
          spare:
            endpoints:
              - { name: a, address: 203.0.113.1 }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            services:
              - name: app
                ttl: 60
                pools: [primary, standby, spare]
                traffic:
        """
            + traffic.indent(10);
    return ConfigLoader.parse(yaml, "test.yaml", Path.of("."));
  }

  void open() throws IOException {
    system =
        TrafficSystem.openManual(
            store,
            dir,
            ticker,
            metrics,
            external,
            ShareEstimator.NONE,
            DiskWrites.DIRECT,
            leadership);
  }

  /** Simulates a crash-free restart: closes everything and opens it again on a fresh store. */
  TrafficFixture reopen() throws IOException {
    system.close();
    open();
    return this;
  }

  TrafficController controller() {
    return system.controller();
  }

  void health(String pool, Verdict v) {
    health(pool, v, 0.0, Double.NaN);
  }

  void health(String pool, Verdict v, double errorRate, double p99) {
    Map<String, EndpointHealth> m = verdicts(pool, v, errorRate, p99);
    store.update(s -> s.withHealth(s.health().withAll(m)));
  }

  /**
   * Publishes {@code pool}'s endpoints (or one endpoint, {@code pool/name}) with verdict {@code v}
   * as the probes do: through the traffic system's health publisher, auditing it as they do.
   */
  void verdict(String target, Verdict v) {
    int slash = target.indexOf('/');
    String pool = slash < 0 ? target : target.substring(0, slash);
    Map<String, EndpointHealth> m = new HashMap<>(verdicts(pool, v, 0.0, Double.NaN));
    if (slash >= 0) {
      m.keySet().retainAll(Set.of(target));
    }
    system
        .healthPublisher()
        .publish(
            h -> h.withAll(m, Set.of()),
            p ->
                system
                    .auditSink()
                    .append(
                        Actor.PROBE,
                        "verdict-change",
                        null,
                        target + " " + v,
                        p.versionBefore(),
                        p.after().version(),
                        Map.of()));
  }

  private Map<String, EndpointHealth> verdicts(
      String pool, Verdict v, double errorRate, double p99) {
    Map<String, EndpointHealth> m = new HashMap<>();
    for (String ep : pool.equals("primary") ? List.of("a", "b") : List.of("a")) {
      EndpointHealth old = store.current().health().get(pool + "/" + ep);
      m.put(
          pool + "/" + ep,
          new EndpointHealth(
              v,
              ticker.currentTimeMillis(),
              "test",
              false,
              Double.NaN,
              p99,
              errorRate,
              old.results(),
              old.failures()));
    }
    return m;
  }

  /**
   * Stands in for the probes: every endpoint with a verdict gets one check result per second of
   * {@code d}, all failing while it is down, otherwise failing at its pool's {@link #failing} rate
   * or else its current error rate.
   */
  void probe(Duration d) {
    long n = d.toSeconds();
    if (n <= 0) {
      return;
    }
    store.update(
        s -> {
          Map<String, EndpointHealth> m = new HashMap<>();
          for (String key : List.of("primary/a", "primary/b", "standby/a", "spare/a")) {
            EndpointHealth h = s.health().get(key);
            if (h.verdict() == Verdict.UNKNOWN) {
              continue;
            }
            double rate = failing.getOrDefault(key.substring(0, key.indexOf('/')), h.errorRate());
            long failed = h.verdict() == Verdict.DOWN ? n : Math.round(n * rate);
            m.put(
                key,
                new EndpointHealth(
                    h.verdict(),
                    h.sinceMillis(),
                    h.reason(),
                    h.stale(),
                    h.rttP50Millis(),
                    h.rttP99Millis(),
                    h.errorRate(),
                    h.results() + n,
                    h.failures() + failed));
          }
          return m.isEmpty() ? s : s.withHealth(s.health().withAll(m));
        });
  }

  void allUp() {
    health("primary", Verdict.UP);
    health("standby", Verdict.UP);
    health("spare", Verdict.UP);
  }

  /** Advances the clock (the probes report one result a second) and runs one controller step. */
  void tickAfter(Duration d) {
    ticker.advance(d);
    probe(d);
    controller().tick();
  }

  ServicePlan plan() {
    return store.current().traffic().plan(APP);
  }

  /** The percentage of the first shift whose id starts with {@code prefix}, or 0. */
  double shiftPercent(String prefix) {
    return plan().shifts().stream()
        .filter(s -> s.id().startsWith(prefix))
        .mapToDouble(Shift::percent)
        .findFirst()
        .orElse(0);
  }

  @Override
  public void close() throws IOException {
    system.close();
  }
}
