package io.sluice.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.OperatingSystemMXBean;
import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.HealthConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ProbeConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.AuditSink;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.probe.check.Check;
import io.sluice.probe.check.CheckResult;
import io.sluice.probe.check.CheckSource;
import io.sluice.probe.testing.HttpBackend;
import io.sluice.probe.testing.NettyBackend;
import io.sluice.probe.testing.TcpBackend;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measurements in real time, excluded from the normal build (tag {@code slow}); run with {@code mvn
 * -B -o -q -pl gslb-probe -am verify -Dsurefire.excludedGroups= -Dgroups=slow
 * -Dtest=LoadMeasurement -Dsurefire.failIfNoSpecifiedTests=false}. They print their figures.
 */
@Tag("slow")
class LoadMeasurement {
  @TempDir Path state;

  private static SluiceConfig config(Path state, int pools, int perPool, HealthConfig health) {
    Map<String, PoolConfig> all = new LinkedHashMap<>();
    for (int p = 0; p < pools; p++) {
      List<EndpointConfig> eps = new ArrayList<>();
      for (int e = 0; e < perPool; e++) {
        eps.add(new EndpointConfig("e" + e, "127.0.0.1", null, null, null));
      }
      all.put("p" + p, new PoolConfig(null, null, null, eps, health));
    }
    return SluiceConfig.builder()
        .stateDir(state.toString())
        .pools(all)
        .probes(
            new ProbeConfig(
                "node-a",
                null,
                null,
                Integer.getInteger("sluice.load.maxInFlight", 512),
                null,
                null))
        .baseDir(state)
        .build();
  }

  /** CPU time of this whole process (the probe and the loopback backend it checks). */
  private static double cpuSeconds() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  @Test
  void tenThousandEndpointsTimesTwoChecksKeepSchedule() throws Exception {
    LongAdder checks = new LongAdder();
    LongAdder failed = new LongAdder();
    GslbMetrics m =
        new GslbMetrics() {
          @Override
          public void probeCheck(String kind, boolean ok, String reason, long nanos) {
            checks.increment();
            if (!ok) {
              failed.increment();
            }
          }
        };
    try (NettyBackend backend = new NettyBackend()) {
      HealthConfig h =
          new HealthConfig(
              CheckConfig.tcp(backend.port()), CheckConfig.http(backend.port(), "/ready"));
      SluiceConfig c = config(state, 100, 100, h);
      SnapshotStore store = new SnapshotStore(Snapshot.initial(c));
      long t0 = System.nanoTime();
      try (ProbeService s = ProbeService.start(store, AuditSink.NONE, m, Ticker.SYSTEM)) {
        for (int i = 1; i <= 6; i++) {
          Thread.sleep(10_000);
          ProbeStatus st = s.status();
          System.out.printf(
              "load t=%ds checks=%d failed=%d inFlight=%d queued=%d lag p50=%.1fms p99=%.1fms"
                  + " max=%.1fms cpu=%.1fs%n",
              (System.nanoTime() - t0) / 1_000_000_000L,
              checks.sum(),
              failed.sum(),
              st.inFlight(),
              st.queued(),
              st.lagP50Millis(),
              st.lagP99Millis(),
              st.lagMaxMillis(),
              cpuSeconds());
        }
        long up =
            store.current().health().all().values().stream()
                .filter(x -> x.verdict() == Verdict.UP)
                .count();
        System.out.printf("load endpoints up=%d of 10000%n", up);
        assertEquals(10_000, up);
        assertTrue(s.status().lagP99Millis() < 1000);
      }
    }
  }

  @Test
  void tenThousandEndpointsWithSimulatedChecksKeepSchedule() throws Exception {
    // The probe engine alone: every check "answers" after 2 ms on a timer, no sockets.
    ScheduledExecutorService net = Executors.newSingleThreadScheduledExecutor();
    Check simulated =
        new Check() {
          @Override
          public CompletableFuture<CheckResult> run() {
            var f = new CompletableFuture<CheckResult>();
            net.schedule(() -> f.complete(CheckResult.pass(2_000_000)), 2, TimeUnit.MILLISECONDS);
            return f;
          }

          @Override
          public String describe() {
            return "simulated";
          }
        };
    CheckSource source =
        new CheckSource() {
          @Override
          public Check create(CheckConfig c, String a, Duration t) {
            return simulated;
          }

          @Override
          public Check canary(String spec) {
            return simulated;
          }
        };
    LongAdder checks = new LongAdder();
    GslbMetrics m =
        new GslbMetrics() {
          @Override
          public void probeCheck(String kind, boolean ok, String reason, long nanos) {
            checks.increment();
          }
        };
    HealthConfig h = new HealthConfig(CheckConfig.tcp(1), CheckConfig.http(1, "/ready"));
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config(state, 100, 100, h)));
    ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM);
    long t0 = System.nanoTime();
    try (ProbeService s =
        ProbeService.start(store, AuditSink.NONE, m, ts, new SplittableRandom(1), ts, source)) {
      for (int i = 1; i <= 6; i++) {
        Thread.sleep(10_000);
        ProbeStatus st = s.status();
        System.out.printf(
            "simulated t=%ds checks=%d inFlight=%d queued=%d lag p50=%.1fms p99=%.1fms max=%.1fms%n",
            (System.nanoTime() - t0) / 1_000_000_000L,
            checks.sum(),
            st.inFlight(),
            st.queued(),
            st.lagP50Millis(),
            st.lagP99Millis(),
            st.lagMaxMillis());
      }
    } finally {
      net.shutdownNow();
    }
  }

  @Test
  void detectionAndRecoveryWithTheDefaults() throws Exception {
    try (HttpBackend http = new HttpBackend();
        TcpBackend tcp = new TcpBackend()) {
      HealthConfig h =
          new HealthConfig(CheckConfig.tcp(tcp.port()), CheckConfig.http(http.port(), "/ready"));
      SluiceConfig c = config(state, 1, 1, h);
      SnapshotStore store = new SnapshotStore(Snapshot.initial(c));
      try (ProbeService s =
          ProbeService.start(store, AuditSink.NONE, GslbMetrics.NOOP, Ticker.SYSTEM)) {
        s.awaitInitialRound();
        while (store.current().health().verdict("p0/e0") != Verdict.UP) {
          Thread.sleep(10);
        }
        Thread.sleep(35_000);
        for (int round = 0; round < 2; round++) {
          http.stop();
          tcp.stop();
          long t0 = System.nanoTime();
          while (store.current().health().verdict("p0/e0") != Verdict.DOWN) {
            Thread.sleep(10);
          }
          long down = (System.nanoTime() - t0) / 1_000_000;
          http.restart();
          tcp.restart();
          long t1 = System.nanoTime();
          while (store.current().health().verdict("p0/e0") != Verdict.UP) {
            Thread.sleep(10);
          }
          long up = (System.nanoTime() - t1) / 1_000_000;
          System.out.printf(
              "defaults round %d: detection %d ms, recovery %d ms%n", round, down, up);
          Thread.sleep(3_000 + round * 7_000);
        }
      }
    }
  }
}
