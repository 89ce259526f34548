package io.sluice.admin.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
 * Cost of recording on the DNS path. Run after {@code mvn -pl gslb-admin-api -am test-compile}:
 *
 * <pre>
 * java -cp "gslb-admin-api/target/test-classes:gslb-admin-api/target/classes:$(cat cp.txt)" \
 *   org.openjdk.jmh.Main GslbMetricsBenchmark -prof gc
 * </pre>
 *
 * where {@code cp.txt} holds the module's test classpath ({@code mvn dependency:build-classpath
 * -Dmdep.outputFile=cp.txt -Dmdep.includeScope=test}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GslbMetricsBenchmark {
  private static final int[] QTYPES = {1, 28, 1, 1, 65, 1, 28, 15};
  private MicrometerGslbMetrics metrics;
  private int i;

  @Setup
  public void setup() {
    metrics = new MicrometerGslbMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  /** One query counted and timed: the per-query cost the DNS module pays. */
  @Benchmark
  public void dnsQuery() {
    metrics.dnsQuery("example.com.", QTYPES[i++ & 7], 0, false, 42_000);
  }

  /** One service answer with its nearest/cross-region accounting. */
  @Benchmark
  public void serviceAnswer() {
    metrics.serviceAnswer("app.example.com.", (i++ & 1) == 0 ? "eu-west-1" : "us-east-1", true);
  }
}
