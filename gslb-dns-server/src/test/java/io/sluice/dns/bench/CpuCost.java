package io.sluice.dns.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Measures benchmark cases in thread CPU time rather than wall time, in interleaved rounds, keeping
 * each case's best round: on a machine busy with other work, wall time mostly measures the wait for
 * a core, CPU time does not.
 */
final class CpuCost {
  private CpuCost() {}

  /** Makes the case of one name. */
  interface Factory {
    Supplier<byte[]> make(String name) throws Exception;
  }

  /**
   * Parses {@code [rounds] [queries]} from {@code args} (15 and 200,000 by default), makes a case
   * per name and prints their costs.
   */
  static void run(String[] args, List<String> names, Factory factory) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    int queries = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    List<Supplier<byte[]>> cases = new java.util.ArrayList<>();
    for (String name : names) {
      cases.add(factory.make(name));
    }
    print(names, cases, rounds, queries);
  }

  /** Runs every case {@code queries} times per round and prints its best CPU ns per query. */
  static void print(List<String> names, List<Supplier<byte[]>> cases, int rounds, int queries) {
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    double[] best = new double[cases.size()];
    Arrays.fill(best, Double.MAX_VALUE);
    long sink = 0;
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < cases.size(); i++) {
        Supplier<byte[]> c = cases.get(i);
        long start = cpu.getCurrentThreadCpuTime();
        for (int n = 0; n < queries; n++) {
          byte[] out = c.get();
          sink += out == null ? 0 : out.length;
        }
        double perQuery = (cpu.getCurrentThreadCpuTime() - start) / (double) queries;
        // The first rounds warm the JIT up; only later ones count.
        if (round >= rounds / 3) {
          best[i] = Math.min(best[i], perQuery);
        }
      }
    }
    for (int i = 0; i < cases.size(); i++) {
      System.out.printf("%-12s %8.0f ns CPU per query (best round)%n", names.get(i), best[i]);
    }
    System.out.println("(checksum " + sink + ")");
  }
}
