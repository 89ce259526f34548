package io.sluice.policy;

import static io.sluice.policy.Fixtures.client;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.ShadowReporter;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sampler behind shadow chains and the decision log: every sampled answer is evaluated against
 * the candidate exactly as a planner serving the candidate would answer, counted per region, and
 * logged to a file rotated by size.
 */
class DecisionSamplerTest {
  private static final String SVC = "geo.example.com.";

  @TempDir Path dir;

  /** The service with {@code chain}; with a {@code shadow}, the decision log is on too. */
  private String yaml(String chain, String shadow) {
    return "stateDir: "
        + dir
        + "\n"
        + (shadow == null
            ? ""
            : "observability:\n  decisionLog: { file: d.jsonl, sample: 1, maxBytes: 4096, keep: 1 }\n")
        + Fixtures.BASE
        + "      - name: geo\n"
        + "        pools: [eu1, us1, ap1]\n"
        + "        chain: "
        + chain
        + "\n"
        + (shadow == null ? "" : "        shadow: { chain: " + shadow + ", sample: 1 }\n");
  }

  @Test
  void countsWhatTheCandidateWouldServeAndLogsEverySample() throws Exception {
    SnapshotStore live =
        new SnapshotStore(
            Snapshot.initial(
                ConfigLoader.parse(
                    yaml("[healthy, geo]", "[healthy, weighted]"), "t.yaml", Path.of("."))));
    SnapshotStore promoted =
        new SnapshotStore(
            Snapshot.initial(
                ConfigLoader.parse(yaml("[healthy, weighted]", null), "t.yaml", Path.of("."))));
    PolicyPlanner p = new PolicyPlanner(live, GslbMetrics.NOOP);
    PolicyPlanner candidate = new PolicyPlanner(promoted, GslbMetrics.NOOP);
    try {
      long differing = 0;
      long euNearest = 0;
      for (int i = 0; i < 100; i++) {
        for (String net : List.of("10.1.", "10.2.")) {
          ClientInfo c = client(net + i + ".0", 24);
          List<String> a = p.plan(SVC, AddressFamily.V4, c).pools();
          List<String> b = candidate.plan(SVC, AddressFamily.V4, c).pools();
          differing += new HashSet<>(a).equals(new HashSet<>(b)) ? 0 : 1;
          euNearest += net.equals("10.1.") && b.equals(List.of("eu1")) ? 1 : 0;
        }
      }
      p.awaitSamples();
      ShadowReporter.ShadowReport r = p.shadow(SVC).orElseThrow();
      assertEquals(200, r.all().sampled());
      assertTrue(differing > 0);
      assertEquals(differing, r.all().differing());
      ShadowReporter.RegionReport eu =
          r.regions().stream().filter(x -> x.region().equals("eu")).findFirst().orElseThrow();
      assertEquals(100, eu.sampled());
      assertEquals(1.0, eu.liveNearest(), "geo keeps eu clients in eu");
      assertEquals(euNearest / 100.0, eu.candidateNearest());
      assertEquals(List.of("healthy", "weighted"), r.candidate());
      assertFalse(candidate.shadow(SVC).isPresent(), "no shadow, no report");

      // Every sample was logged; the log rotated at 4 KiB and kept one old file.
      Path log = dir.resolve("d.jsonl");
      assertTrue(Files.size(log) <= 4096);
      assertTrue(Files.size(dir.resolve("d.jsonl.1")) <= 4096);
      assertFalse(Files.exists(dir.resolve("d.jsonl.2")));
      String last = Files.readAllLines(log).get(Files.readAllLines(log).size() - 1);
      assertTrue(last.contains("\"client\":\"10.2.99.0/24\""), last);
      assertTrue(last.contains("\"shadowPools\""), last);
    } finally {
      p.close();
      candidate.close();
    }
  }
}
