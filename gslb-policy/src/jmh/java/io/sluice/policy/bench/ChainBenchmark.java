package io.sluice.policy.bench;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.policy.PolicyPlanner;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One full chain decision, {@code [healthy, geo, weighted]} over 3 regions with 3 pools each, for
 * ECS clients spread over the three regions and the default region.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ChainBenchmark {
  private static final String YAML =
      """
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 }, proximity: [us, ap] }
        us: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu, ap] }
        ap: { location: { lat: 22.3, lon: 114.2 } }
      topology:
        defaultRegion: us
        networks:
          - { cidr: 10.1.0.0/16, region: eu }
          - { cidr: 10.2.0.0/16, region: us }
          - { cidr: 10.3.0.0/16, region: ap }
      pools:
        eu1: { region: eu, endpoints: [{ address: 192.0.2.1 }, { address: 192.0.2.11 }] }
        eu2: { region: eu, endpoints: [{ address: 192.0.2.2 }] }
        eu3: { region: eu, endpoints: [{ address: 192.0.2.3 }] }
        us1: { region: us, endpoints: [{ address: 198.51.100.1 }] }
        us2: { region: us, endpoints: [{ address: 198.51.100.2 }] }
        us3: { region: us, endpoints: [{ address: 198.51.100.3 }] }
        ap1: { region: ap, endpoints: [{ address: 203.0.113.1 }] }
        ap2: { region: ap, endpoints: [{ address: 203.0.113.2 }] }
        ap3: { region: ap, endpoints: [{ address: 203.0.113.3 }] }
      zones:
        - origin: example.com.
          soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
          ns: [ns1.example.com.]
          services:
            - name: www
              pools:
                - { pool: eu1, weight: 5 }
                - { pool: eu2, weight: 3 }
                - { pool: eu3, weight: 2 }
                - { pool: us1, weight: 5 }
                - { pool: us2, weight: 3 }
                - { pool: us3, weight: 2 }
                - { pool: ap1, weight: 5 }
                - { pool: ap2, weight: 3 }
                - { pool: ap3, weight: 2 }
              chain: [healthy, geo, weighted]
      """;

  private PolicyPlanner planner;
  private ClientInfo[] clients;
  private int next;

  @Setup
  public void setUp() throws Exception {
    SluiceConfig c = ConfigLoader.parse(YAML, "bench.yaml", Path.of("."));
    planner = new PolicyPlanner(new SnapshotStore(Snapshot.initial(c)), GslbMetrics.NOOP);
    Random rnd = new Random(1);
    clients = new ClientInfo[1024];
    for (int i = 0; i < clients.length; i++) {
      byte[] a = {10, (byte) (1 + rnd.nextInt(4)), (byte) rnd.nextInt(256), 0};
      clients[i] = ClientInfo.ofSubnet(a, 24);
    }
  }

  /** One decision for the next client. */
  @Benchmark
  public Decision decide() {
    ClientInfo c = clients[next++ & 1023];
    return planner.plan("www.example.com.", AddressFamily.V4, c);
  }

  /** Runs this benchmark: pass JMH options, for example {@code -prof gc}. */
  public static void main(String[] args) throws Exception {
    String[] all = new String[args.length + 1];
    all[0] = ChainBenchmark.class.getName();
    System.arraycopy(args, 0, all, 1, args.length);
    org.openjdk.jmh.Main.main(all);
  }
}
