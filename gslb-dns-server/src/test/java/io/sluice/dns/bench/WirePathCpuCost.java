package io.sluice.dns.bench;

import java.util.List;

/**
 * The kinds of {@link WirePathBenchmark} measured in thread CPU time, in interleaved rounds,
 * keeping each kind's best round ({@link CpuCost}). Run from the repository root with the classpath
 * of {@code bench/jmh.sh}: {@code java -cp CP io.sluice.dns.bench.WirePathCpuCost [rounds]
 * [queries]}.
 */
public final class WirePathCpuCost {
  private WirePathCpuCost() {}

  public static void main(String[] args) throws Exception {
    CpuCost.run(
        args,
        List.of("static", "www", "geo", "geo-subnets", "mix", "nx"),
        kind -> {
          WirePathBenchmark b = new WirePathBenchmark();
          b.kind = kind;
          b.setUp();
          return b::respond;
        });
  }
}
