package io.sluice.dns.response;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the abuse defences add to one query, apart from the rest of the responder (whose whole cost
 * {@code EdgeBenchmark} measures, too coarse to see tens of nanoseconds on a busy machine): {@code
 * charge} hashes a client network, kind and name into a key and charges its bucket, as every
 * limited UDP response does; {@code cookie} checks a presented server cookie and makes a fresh one
 * (two SipHash-2-4 runs), as a query whose cookie is not reused costs. Run: {@code bench/jmh.sh
 * RateLimiterBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RateLimiterBenchmark {
  private final RateLimiter limiter = new RateLimiter(262_144);
  private final ServerCookies cookies = new ServerCookies(new byte[16], null);
  private final byte[] ip = {(byte) 192, 0, 2, 7};
  private byte[] presented;
  private long second;
  private int name;

  @Setup
  public void setUp() {
    byte[] option = cookies.option(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 0, 8, ip, 1000, false);
    presented = java.util.Arrays.copyOfRange(option, 4, option.length);
  }

  @Benchmark
  public int charge() {
    // Many names from one network, so the table is used as a flood of names uses it.
    name += 0x9e3779b9;
    long key = RateLimiter.mix(limiter.seed(), 0xc0000200L);
    key = RateLimiter.mix(key, 0);
    key = RateLimiter.mix(key, 1L << 32 | name);
    return limiter.charge(key, second++ >>> 20, 200, 15, 2);
  }

  @Benchmark
  public byte[] cookie() {
    int check = cookies.check(presented, 0, presented.length, ip, 1000);
    return cookies.option(presented, 0, presented.length, ip, 1000, check == ServerCookies.VALID);
  }
}
