package io.sluice.dns.bench;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ResponderSettings;
import io.sluice.dns.response.Transport;
import io.sluice.dns.zone.ZoneCompiler;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * The responder's own cost per query (decode, look up, splice), without sockets, for each kind of
 * answer. Run: see docs/benchmark.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResponderBenchmark {
  @Param({"www.example.com.", "app.example.com.", "nx.example.com.", "x.apps.example.com."})
  public String qname;

  private Responder responder;
  private byte[] buffer;
  private int length;
  private InetAddress client;

  @Setup
  public void setUp() throws Exception {
    SluiceConfig config =
        ConfigLoader.load(Path.of(System.getProperty("sluice.config", "config/sluice.yaml")));
    responder =
        new Responder(
            ZoneCompiler.compile(config, "bench"),
            ResponderSettings.of(config, "test"),
            new AllEndpointsPlanner(new SnapshotStore(Snapshot.initial(config))),
            GslbMetrics.NOOP);
    byte[] q =
        Message.newQuery(Record.newRecord(Name.fromString(qname), Type.A, DClass.IN)).toWire();
    buffer = Arrays.copyOf(q, 65536);
    length = q.length;
    client = InetAddress.getLoopbackAddress();
  }

  @Benchmark
  public byte[] respond() {
    return responder.respond(buffer, length, client, Transport.UDP);
  }
}
