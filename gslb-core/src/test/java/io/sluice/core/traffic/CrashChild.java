package io.sluice.core.traffic;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.SoaConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The child process of the crash test: opens the traffic state in {@code args[0]}, prints the
 * restored weight, then applies a stream of weight changes, printing {@code ack N} after each
 * command returns (is acknowledged) and before the next one starts, until it is killed (or, with
 * {@code args[1]}, after that many commands).
 */
public final class CrashChild {
  private CrashChild() {}

  /** The fixture's configuration built directly, sparing the child the YAML parser's start-up. */
  static SluiceConfig config() {
    Map<String, PoolConfig> pools = new LinkedHashMap<>();
    for (String p : List.of("primary", "standby", "spare")) {
      pools.put(
          p,
          new PoolConfig(
              null,
              null,
              null,
              List.of(new EndpointConfig("a", "192.0.2.1", null, null, null)),
              null));
    }
    ServiceConfig app =
        new ServiceConfig(
            "app",
            60L,
            List.of(
                ServicePoolConfig.ofName("primary"),
                ServicePoolConfig.ofName("standby"),
                ServicePoolConfig.ofName("spare")),
            null,
            null,
            null,
            null,
            null);
    ZoneConfig zone =
        new ZoneConfig(
            "example.com.",
            null,
            null,
            new SoaConfig(
                "ns1.example.com.", "hostmaster.example.com.", null, null, null, null, null, null),
            List.of("ns1.example.com."),
            null,
            List.of(app));
    return SluiceConfig.builder().zones(List.of(zone)).pools(pools).build();
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config()));
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    TrafficSystem sys =
        TrafficSystem.openManual(store, dir, Ticker.SYSTEM, GslbMetrics.NOOP, g -> 0);
    Map<String, Integer> w = store.current().traffic().plan(TrafficFixture.APP).weights();
    int n = w.getOrDefault("primary", 0);
    out.println("restored " + n + " " + w.getOrDefault("standby", 0));
    out.flush();
    Actor actor = new Actor("crash-test", "operator");
    int limit = args.length > 1 ? n + Integer.parseInt(args[1]) : 60_000;
    for (int i = n + 1; i <= limit; i++) {
      // Both weights change in one command: after a crash they must be equal (never half-applied).
      sys.controlPlane()
          .setWeights(
              actor, TrafficFixture.APP, Map.of("primary", i, "standby", i), false, "n", "r" + i);
      out.println("ack " + i);
      out.flush();
    }
    sys.close();
  }
}
