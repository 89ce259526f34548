package io.sluice.dns.bench;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.response.Transport;
import io.sluice.policy.PolicyPlanner;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * The whole per-query work of the UDP path short of the socket, as the server runs it: the
 * configuration of the peer benchmark ({@code bench/sluice-bench.yaml}, run from the repository
 * root), the real policy planner and the real Prometheus meters, so the per-query metrics and the
 * planner's answer accounting are in the figure. Kinds as in the peer harness: {@code static},
 * {@code www} (weighted), {@code geo} (one ECS subnet), {@code geo-subnets} (1024 ECS subnets in
 * turn, so no cache of one subnet's answer does the work) and {@code mix} (static, services, other
 * types and NXDOMAIN names), {@code nx} (one NXDOMAIN name, the path of every name without static
 * answers of its own) and {@code nx-random} (65,536 names that do not exist, in turn: a
 * random-subdomain flood, where no cached negative answer is hit). Run with {@code bench/jmh.sh
 * WirePathBenchmark -prof gc}: its {@code gc.alloc.rate.norm} (bytes per query) is the load-robust
 * figure.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WirePathBenchmark {
  @Param({"static", "www", "geo", "geo-subnets", "mix", "nx", "nx-random"})
  public String kind;

  private PrometheusMetrics metrics;
  private Responder responder;
  private byte[][] queries;
  private int next;
  private InetAddress client;

  @Setup
  public void setUp() throws Exception {
    SluiceConfig config =
        ConfigLoader.load(Path.of(System.getProperty("bench.config", "bench/sluice-bench.yaml")));
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(), PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, "bench"));
    metrics = new PrometheusMetrics();
    // -Dbench.metrics=noop leaves the meters out, to tell their share.
    GslbMetrics sink =
        "noop".equals(System.getProperty("bench.metrics")) ? GslbMetrics.NOOP : metrics.gslb();
    PolicyPlanner planner = new PolicyPlanner(store, sink);
    responder = new Responder(store, null, planner, sink);
    client = InetAddress.getLoopbackAddress();
    queries = queries(kind);
  }

  @TearDown
  public void tearDown() {
    metrics.close();
  }

  /** The query packets of one kind, answered in turn. */
  static byte[][] queries(String kind) throws Exception {
    List<byte[]> out = new ArrayList<>();
    switch (kind) {
      case "static" -> out.add(query("static.example.test.", Type.A, null));
      case "www" -> out.add(query("www.example.test.", Type.A, null));
      case "geo" -> out.add(query("geo.example.test.", Type.A, new int[] {10, 2, 0, 0}));
      case "geo-subnets" -> {
        for (int net = 1; net <= 4; net++) {
          for (int third = 0; third < 256; third++) {
            out.add(query("geo.example.test.", Type.A, new int[] {10, net, third, 0}));
          }
        }
        Collections.shuffle(out, new Random(1));
      }
      case "mix" -> {
        Object[][] mix = {
          {"static.example.test.", Type.A},
          {"www.example.test.", Type.A},
          {"geo.example.test.", Type.A},
          {"static6.example.test.", Type.AAAA},
          {"www.example.test.", Type.AAAA},
          {"example.test.", Type.MX},
          {"example.test.", Type.SOA},
          {"example.test.", Type.NS},
          {"txt.example.test.", Type.TXT},
          {"mail.example.test.", Type.A},
          {"static.example.test.", Type.A},
          {"www.example.test.", Type.A},
          {"geo.example.test.", Type.A},
          {"static.example.test.", Type.A},
          {"www.example.test.", Type.A},
          {"nx1.example.test.", Type.A}
        };
        for (Object[] m : mix) {
          out.add(query((String) m[0], (Integer) m[1], null));
        }
      }
      case "nx" -> out.add(query("nx1.example.test.", Type.A, null));
      case "nx-random" -> {
        // 65,536 names that do not exist, each asked once per round: a random-subdomain flood,
        // where no cached negative answer is ever hit.
        Random random = new Random(3);
        for (int i = 0; i < 65536; i++) {
          out.add(
              query(
                  "r" + Integer.toUnsignedString(random.nextInt()) + ".example.test.",
                  Type.A,
                  null));
        }
      }
      default -> throw new IllegalArgumentException(kind);
    }
    return out.toArray(new byte[0][]);
  }

  private static byte[] query(String name, int type, int[] ecs) throws Exception {
    Message m = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    if (ecs != null) {
      byte[] a = {(byte) ecs[0], (byte) ecs[1], (byte) ecs[2], (byte) ecs[3]};
      EDNSOption o = new ClientSubnetOption(24, InetAddress.getByAddress(a));
      m.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(o)), org.xbill.DNS.Section.ADDITIONAL);
    }
    return m.toWire();
  }

  @Benchmark
  public byte[] respond() {
    byte[] q = queries[next++ & (queries.length - 1)];
    return responder.respond(q, q.length, client, Transport.UDP);
  }
}
