package io.sluice.dns.bench;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.dnssec.AnswerSigning;
import io.sluice.dns.dnssec.RrsetSigner;
import io.sluice.dns.dnssec.SignedZone;
import io.sluice.dns.dnssec.SigningPolicy;
import io.sluice.dns.dnssec.ZoneSigning;
import io.sluice.dns.dnssec.keys.KeyTiming;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeys;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.response.Transport;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneCompiler;
import io.sluice.policy.PolicyPlanner;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * DNSSEC figures, run from the repository root with the classpath of {@code bench/jmh.sh}:
 *
 * <ul>
 *   <li>{@code java -cp CP io.sluice.dns.bench.DnssecCost queries [rounds] [queries]}: thread CPU
 *       per query of the responder (as {@link WirePathCpuCost}) on {@code bench/sluice-bench.yaml}
 *       with its zone signed, each kind with and without the DO bit, interleaved; {@code nx-do}
 *       asks a fresh random name each time (one online NSEC signature per query).
 *   <li>{@code java -cp CP io.sluice.dns.bench.DnssecCost sign ZONEFILE-CONFIG}: the time to sign
 *       every static RRset of the zones of a configuration (bench/gen-large-config.sh writes one
 *       with 1 M records), on every core.
 * </ul>
 */
public final class DnssecCost {
  private DnssecCost() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("ramp")) {
      ramp();
      return;
    }
    if (args.length > 0 && args[0].equals("sign")) {
      sign(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 13);
      return;
    }
    String[] rest = args.length > 0 ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
    queries(rest);
  }

  static SigningKey key(Name zone, int algorithm) throws Exception {
    KeyPair pair;
    if (algorithm == DNSSEC.Algorithm.ED25519) {
      pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    } else {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      pair = g.generateKeyPair();
    }
    DNSKEYRecord dnskey =
        new DNSKEYRecord(
            zone, DClass.IN, 3600, 257, DNSKEYRecord.Protocol.DNSSEC, algorithm, pair.getPublic());
    return new SigningKey(dnskey, pair.getPrivate(), KeyTiming.always());
  }

  private static void sign(Path config, int algorithm) throws Exception {
    SluiceConfig c = ConfigLoader.load(config);
    long t0 = System.nanoTime();
    List<Zone> zones = ZoneCompiler.compile(c, "bench").zones();
    long t1 = System.nanoTime();
    for (Zone z : zones) {
      ZoneKeys keys = new ZoneKeys(z.origin(), List.of(key(z.origin(), algorithm)));
      long cpu0 = processCpu();
      long s0 = System.nanoTime();
      SignedZone.sign(
          z, new RrsetSigner(keys, SigningPolicy.DEFAULT, Ticker.SYSTEM), Ticker.SYSTEM);
      long s1 = System.nanoTime();
      long cpu1 = processCpu();
      System.out.printf(
          "%s: %d names signed (algorithm %d) in %.1f s wall, %.1f s CPU on %d cores"
              + " (zone compiled in %.1f s)%n",
          z.origin(),
          z.names().size(),
          algorithm,
          (s1 - s0) / 1e9,
          (cpu1 - cpu0) / 1e9,
          Runtime.getRuntime().availableProcessors(),
          (t1 - t0) / 1e9);
    }
  }

  private static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The bench configuration with its zone signed, its store and planner, answers prepared. */
  private static SnapshotStore signedStore(PolicyPlanner[] planner) throws Exception {
    String yaml =
        Files.readString(Path.of(System.getProperty("bench.config", "bench/sluice-bench.yaml")));
    yaml =
        yaml.replaceFirst(
            "(?m)^  - origin: example.test.\\n",
            "  - origin: example.test.\n    dnssec: { enabled: true, keyDirectory: keys }\n");
    SluiceConfig config = ConfigLoader.parse(yaml, "bench", Path.of("bench"));
    Name origin = Name.fromString("example.test.");
    ZoneKeys keys = new ZoneKeys(origin, List.of(key(origin, DNSSEC.Algorithm.ECDSAP256SHA256)));
    ZoneSigning signing =
        new ZoneSigning(c -> zone -> Optional.of(keys), Ticker.SYSTEM, 100_000_000);
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(null, signing), PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, "bench"));
    planner[0] = new PolicyPlanner(store, GslbMetrics.NOOP);
    AnswerSigning.install(store, planner[0]);
    return store;
  }

  /**
   * A ramp of the weighted service from w1 to w3 in ten steps: the signatures each step makes
   * before its snapshot is published, and the writer's CPU time for the step.
   */
  private static void ramp() throws Exception {
    PolicyPlanner[] planner = new PolicyPlanner[1];
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    long c0 = cpu.getCurrentThreadCpuTime();
    SnapshotStore store = signedStore(planner);
    long c1 = cpu.getCurrentThreadCpuTime();
    SignedZone zone = store.current().artifacts().get(ServedZones.class).signed().zones().get(0);
    System.out.printf(
        "start: %d answer RRsets signed before publishing; build and sign %.1f ms CPU%n",
        zone.preparedSignatures(), (c1 - c0) / 1e6);
    long total = 0;
    long totalCpu = 0;
    for (int step = 1; step <= 10; step++) {
      double percent = step * 10;
      long before = zone.preparedSignatures();
      long s0 = cpu.getCurrentThreadCpuTime();
      Shift shift = new Shift("ramp", List.of("w1"), List.of("w3"), percent);
      store.update(
          s ->
              s.withTraffic(
                  s.traffic()
                      .withPlan(
                          "www.example.test.",
                          ServicePlan.DEFAULT.withShifts(List.of(shift)).withTtlOverride(5L))));
      long s1 = cpu.getCurrentThreadCpuTime();
      long made = zone.preparedSignatures() - before;
      total += made;
      totalCpu += s1 - s0;
      System.out.printf(
          "step %3.0f%%: %d new answer RRsets signed, step %.2f ms CPU%n",
          percent, made, (s1 - s0) / 1e6);
    }
    System.out.printf(
        "ramp: %d signatures in %.1f ms of writer CPU; online: %d%n",
        total, totalCpu / 1e6, zone.onlineSignatures());
  }

  private static void queries(String[] args) throws Exception {
    PolicyPlanner[] planners = new PolicyPlanner[1];
    SnapshotStore store = signedStore(planners);
    PolicyPlanner planner = planners[0];
    Responder responder = new Responder(store, null, planner, GslbMetrics.NOOP);
    InetAddress client = InetAddress.getLoopbackAddress();
    List<String> names = new ArrayList<>();
    List<Supplier<byte[]>> cases = new ArrayList<>();
    Object[][] kinds = {
      {"static", "static.example.test.", Type.A},
      {"www", "www.example.test.", Type.A},
      {"geo", "geo.example.test.", Type.A},
      {"nodata", "static.example.test.", Type.TXT},
    };
    for (Object[] k : kinds) {
      for (boolean dnssecOk : new boolean[] {false, true}) {
        byte[] q = query((String) k[1], (Integer) k[2], dnssecOk);
        names.add(k[0] + (dnssecOk ? "-do" : ""));
        cases.add(() -> responder.respond(q, q.length, client, Transport.UDP));
      }
    }
    // Fresh random names: an NXDOMAIN (no DO) or an online-signed compact denial (DO) each.
    Random random = new Random(1);
    for (boolean dnssecOk : new boolean[] {false, true}) {
      byte[][] nx = new byte[1 << 20][];
      for (int i = 0; i < nx.length; i++) {
        nx[i] =
            query(
                "r" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36) + ".example.test.",
                Type.A,
                dnssecOk);
      }
      int[] next = {0};
      names.add(dnssecOk ? "nx-random-do" : "nx-random");
      cases.add(
          () -> {
            byte[] q = nx[next[0]++ & (nx.length - 1)];
            return responder.respond(q, q.length, client, Transport.UDP);
          });
    }
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    CpuCost.print(names, cases, rounds, count);
  }

  private static byte[] query(String name, int type, boolean dnssecOk) throws Exception {
    Message m = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    m.addRecord(new OPTRecord(1232, 0, 0, dnssecOk ? ExtendedFlags.DO : 0), Section.ADDITIONAL);
    return m.toWire();
  }
}
