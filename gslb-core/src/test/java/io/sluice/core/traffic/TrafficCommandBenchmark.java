package io.sluice.core.traffic;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.control.Actor;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.CommandResult;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How long the traffic controller takes, on the real disk of the state directory: an operator
 * command until acknowledged (snapshot published, journal and audit record fsync'd), a rollback
 * until acknowledged, and one controller step from a pool's DOWN verdict to the published first
 * ramp step. Run with {@code org.openjdk.jmh.Main TrafficCommandBenchmark} on the test classpath.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class TrafficCommandBenchmark {
  static final String APP = "app.example.com.";
  static final Actor OPS = new Actor("bench", "operator");

  Path dir;
  SnapshotStore store;
  TrafficSystem system;
  int weight;

  @Setup(Level.Trial)
  public void open() throws Exception {
    dir = Files.createTempDirectory(Path.of("target"), "traffic-bench");
    String yaml =
        """
        pools:
          primary: { endpoints: [ { name: a, address: 192.0.2.1 } ] }
          standby: { endpoints: [ { name: a, address: 198.51.100.1 } ] }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            services:
              - name: app
                pools: [primary, standby]
                traffic: { steps: [10, 100], window: 5m, cooldown: 0s }
        """;
    store =
        new SnapshotStore(Snapshot.initial(ConfigLoader.parse(yaml, "bench.yaml", Path.of("."))));
    system = TrafficSystem.openManual(store, dir, Ticker.SYSTEM, GslbMetrics.NOOP, g -> 0);
    health("standby", Verdict.UP);
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    system.close();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  void health(String pool, Verdict v) {
    store.update(s -> s.withHealth(s.health().with(pool + "/a", EndpointHealth.of(v, 0, "bench"))));
  }

  /** Primary up and the service back at its stable plan, before each rollback or step. */
  @Setup(Level.Invocation)
  public void reset() throws CommandRejectedException {
    health("primary", Verdict.UP);
    system.controlPlane().rollback(OPS, APP, "reset", null);
  }

  @Benchmark
  public CommandResult setWeights() throws CommandRejectedException {
    weight = weight % 1000 + 1;
    return system.controlPlane().setWeights(OPS, APP, Map.of("primary", weight), false, "b", null);
  }

  @Benchmark
  public CommandResult rollbackDuringRamp() throws CommandRejectedException {
    // The move and the rollback are both measured: the rollback is the second half.
    system
        .controlPlane()
        .startMove(OPS, APP, List.of("primary"), List.of("standby"), null, "b", null);
    return system.controlPlane().rollback(OPS, APP, "b", null);
  }

  @Benchmark
  public Snapshot downVerdictToFirstStep() {
    health("primary", Verdict.DOWN);
    system.controller().tick();
    return store.current();
  }
}
