package io.sluice.dns.bench;

import java.util.List;

/**
 * The modes of {@link EdgeBenchmark} measured in thread CPU time rather than wall time, in
 * interleaved rounds, keeping each mode's best round ({@link CpuCost}). Run with the classpath of
 * {@code bench/jmh.sh}: {@code java -cp CP io.sluice.dns.bench.EdgeCpuCost [rounds] [queries]}.
 */
public final class EdgeCpuCost {
  private EdgeCpuCost() {}

  public static void main(String[] args) throws Exception {
    CpuCost.run(
        args,
        List.of("off", "rrl-pass", "rrl-limited", "cookie"),
        mode -> {
          EdgeBenchmark b = new EdgeBenchmark();
          b.mode = mode;
          b.setUp();
          return b::respond;
        });
  }
}
