package io.sluice.dns.bench;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ConfigArtifacts;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.response.Transport;
import io.sluice.policy.PolicyPlanner;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * The large configuration of {@code bench/gen-large-config.sh} (a master file of {@code records} A
 * records, {@code services} services over {@code pools} pools): how long building everything it
 * serves takes (zones, answers, policy chain: what a start or a reload does before the swap), and
 * the responder's cost per query for random names of the zone, either over a few thousand names
 * asked again and again ({@code respondHot}) or over every name of the zone ({@code respondSpread},
 * most asked for the first time, as a random-name flood does). Run: see docs/benchmark.md.
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
public class LargeConfigBenchmark {
  private static final int HOT_NAMES = 4096;

  @Param({"1000000"})
  public int records;

  @Param({"10000"})
  public int services;

  @Param({"200"})
  public int pools;

  private Path file;
  private ConfigPublisher publisher;
  private SluiceConfig config;
  private Responder responder;
  private byte[][] hot;
  private byte[][] spread;
  private int next;
  private InetAddress client;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    Path dir =
        Path.of(System.getProperty("sluice.large.dir", "gslb-dns-server/target/large-config"));
    Files.createDirectories(dir);
    Process gen =
        new ProcessBuilder(
                "bench/gen-large-config.sh",
                dir.toString(),
                Integer.toString(records),
                Integer.toString(services),
                Integer.toString(pools))
            .inheritIO()
            .start();
    if (gen.waitFor() != 0) {
      throw new IllegalStateException("bench/gen-large-config.sh failed");
    }
    file = dir.resolve("sluice.yaml");
    config = ConfigLoader.load(file);
    publisher = new ConfigPublisher(List.of(ServedZones.compiler(), PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, file.toString()));
    responder =
        new Responder(
            store, null, new PolicyPlanner(store, GslbMetrics.NOOP, "bench"), GslbMetrics.NOOP);
    SplittableRandom random = new SplittableRandom(13);
    hot = new byte[HOT_NAMES][];
    for (int i = 0; i < hot.length; i++) {
      hot[i] = query(random.nextInt(records));
    }
    spread = new byte[records][];
    for (int i = 0; i < records; i++) {
      spread[i] = query(i);
    }
    for (int i = records - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      byte[] t = spread[i];
      spread[i] = spread[j];
      spread[j] = t;
    }
    client = InetAddress.getLoopbackAddress();
  }

  private static byte[] query(int host) throws Exception {
    Name name = Name.fromString("h" + host + ".large.test.");
    byte[] q = Message.newQuery(Record.newRecord(name, Type.A, DClass.IN)).toWire();
    return Arrays.copyOf(q, 512);
  }

  /** Loads the file and builds everything a start or reload builds before its one swap. */
  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public ConfigArtifacts compile() throws Exception {
    SluiceConfig fresh = ConfigLoader.load(file);
    return publisher.build(fresh, file.toString(), Snapshot.initial(fresh));
  }

  /** A query for one of a few thousand random names of the zone, each asked many times. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @Warmup(iterations = 3, time = 1)
  @Measurement(iterations = 5, time = 1)
  public byte[] respondHot() {
    byte[] q = hot[next++ & (HOT_NAMES - 1)];
    return responder.respond(q, length(q), client, Transport.UDP);
  }

  /** A query for a random name out of every name of the zone. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.NANOSECONDS)
  @Warmup(iterations = 3, time = 1)
  @Measurement(iterations = 5, time = 1)
  public byte[] respondSpread() {
    int i = next++;
    if (next >= spread.length) {
      next = 0;
    }
    byte[] q = spread[i];
    return responder.respond(q, length(q), client, Transport.UDP);
  }

  /** The length of the query at the start of {@code q}: its question ends it (no EDNS). */
  private static int length(byte[] q) {
    int o = 12;
    while (q[o] != 0) {
      o += (q[o] & 0xff) + 1;
    }
    return o + 5;
  }
}
