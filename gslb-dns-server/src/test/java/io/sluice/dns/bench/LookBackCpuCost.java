package io.sluice.dns.bench;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ObservabilityConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.response.Transport;
import io.sluice.dns.tap.DnstapOutput;
import io.sluice.policy.PolicyPlanner;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the look-back features cost the query path, in thread CPU time per query of the calling
 * (event loop) thread, interleaved rounds, best round ({@link CpuCost}): the {@code geo-subnets}
 * queries of {@link WirePathBenchmark} with everything off, with a shadow chain on the service
 * sampled at 1 % and at 100 %, the decision log at 1 %, and dnstap of every query. The evaluating
 * and writing threads' own work is not in these figures: it is off the query path. Run from the
 * repository root with the classpath of {@code bench/jmh.sh}: {@code java -cp CP
 * io.sluice.dns.bench.LookBackCpuCost [rounds] [queries]}.
 */
public final class LookBackCpuCost {
  private LookBackCpuCost() {}

  public static void main(String[] args) throws Exception {
    Path tmp = Files.createTempDirectory("sluice-lookback");
    String yaml =
        Files.readString(Path.of(System.getProperty("bench.config", "bench/sluice-bench.yaml")));
    String geoChain = "chain: [healthy, geo, weighted]\n";
    if (!yaml.contains(geoChain)) {
      throw new IllegalStateException("the bench configuration's geo service changed");
    }
    CpuCost.run(
        args,
        List.of("off", "shadow-1%", "shadow-100%", "declog-1%", "dnstap"),
        name -> {
          String text = yaml;
          switch (name) {
            case "shadow-1%" -> text = shadow(yaml, geoChain, "0.01");
            case "shadow-100%" -> text = shadow(yaml, geoChain, "1");
            case "declog-1%" ->
                text =
                    yaml
                        + "\nobservability:\n  decisionLog: { file: "
                        + tmp.resolve("decisions.jsonl")
                        + ", sample: 0.01 }\n";
            default -> {}
          }
          return responder(text, name.equals("dnstap") ? tmp : null);
        });
  }

  private static String shadow(String yaml, String chain, String sample) {
    return yaml.replace(
        chain, chain + "        shadow: { chain: [healthy, weighted], sample: " + sample + " }\n");
  }

  private static Supplier<byte[]> responder(String yaml, Path dnstapDir) throws Exception {
    SluiceConfig config = ConfigLoader.parse(yaml, "bench", Path.of("bench"));
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(), PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, "bench"));
    PrometheusMetrics metrics = new PrometheusMetrics();
    PolicyPlanner planner = new PolicyPlanner(store, metrics.gslb());
    Responder responder = new Responder(store, null, planner, metrics.gslb());
    if (dnstapDir != null) {
      responder.tap(
          DnstapOutput.open(
              new ObservabilityConfig.Dnstap("bench.fstrm", null, 65_536, null), dnstapDir));
    }
    byte[][] queries = WirePathBenchmark.queries("geo-subnets");
    InetAddress client = InetAddress.getLoopbackAddress();
    int[] next = {0};
    return () -> {
      byte[] q = queries[next[0]++ & (queries.length - 1)];
      return responder.respond(q, q.length, client, Transport.UDP);
    };
  }
}
