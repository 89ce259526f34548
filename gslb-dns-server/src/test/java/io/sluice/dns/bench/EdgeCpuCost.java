package io.sluice.dns.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;

/**
 * The modes of {@link EdgeBenchmark} measured in thread CPU time rather than wall time, in
 * interleaved rounds, keeping each mode's best round: on a machine busy with other work, wall time
 * mostly measures the wait for a core, CPU time does not. Run with the classpath of {@code
 * bench/jmh.sh}: {@code java -cp CP io.sluice.dns.bench.EdgeCpuCost [rounds] [queries]}.
 */
public final class EdgeCpuCost {
  private EdgeCpuCost() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int queries = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    List<String> modes = List.of("off", "rrl-pass", "rrl-limited", "cookie");
    EdgeBenchmark[] benches = new EdgeBenchmark[modes.size()];
    for (int i = 0; i < benches.length; i++) {
      benches[i] = new EdgeBenchmark();
      benches[i].mode = modes.get(i);
      benches[i].setUp();
    }
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    double[] best = new double[benches.length];
    Arrays.fill(best, Double.MAX_VALUE);
    long sink = 0;
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < benches.length; i++) {
        long start = cpu.getCurrentThreadCpuTime();
        for (int n = 0; n < queries; n++) {
          byte[] out = benches[i].respond();
          sink += out == null ? 0 : out.length;
        }
        double perQuery = (cpu.getCurrentThreadCpuTime() - start) / (double) queries;
        // The first rounds warm the JIT up; only later ones count.
        if (round >= rounds / 3) {
          best[i] = Math.min(best[i], perQuery);
        }
      }
    }
    for (int i = 0; i < benches.length; i++) {
      System.out.printf("%-12s %8.0f ns CPU per query (best round)%n", modes.get(i), best[i]);
    }
    System.out.println("(checksum " + sink + ")");
  }
}
