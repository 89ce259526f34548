package io.sluice.admin.metrics;

import static io.sluice.admin.metrics.PrometheusText.value;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The per-query DNS meters keep per-thread cells: what every thread recorded, including threads
 * that have ended, must be in the scrape exactly, and the duration's max must expire with its
 * windows.
 */
class DnsQueryMetersTest {
  private static final String REQUESTS = "sluice_dns_requests_total";
  private static final String DURATION = "sluice_dns_request_duration_seconds";

  @Test
  void countsOfManyThreadsLiveAndEndedAreSummedExactly() throws Exception {
    try (PrometheusMetrics metrics = new PrometheusMetrics()) {
      var g = metrics.gslb();
      int threads = 6;
      int perThread = 25_000;
      CountDownLatch recorded = new CountDownLatch(threads);
      CountDownLatch release = new CountDownLatch(1);
      List<Thread> started = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean ends = t % 2 == 0;
        Thread th =
            new Thread(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    g.dnsQuery("example.com.", 1, 0, false, 10_000);
                    g.dnsQuery("example.com.", 28, 3, true, 60_000);
                  }
                  recorded.countDown();
                  if (!ends) {
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                });
        th.start();
        started.add(th);
      }
      assertEquals(true, recorded.await(60, TimeUnit.SECONDS));
      // Half of the threads have ended: their cells are folded into the retired totals.
      for (int t = 0; t < threads; t += 2) {
        started.get(t).join();
      }
      // A new thread recording after the others ended retires their cells on the way.
      Thread late = new Thread(() -> g.dnsQuery("example.com.", 1, 0, false, 10_000));
      late.start();
      late.join();
      Map<String, Double> m = PrometheusText.parse(metrics.scrape());
      release.countDown();
      long total = (long) threads * perThread;
      assertEquals(
          total + 1,
          value(
              m,
              REQUESTS,
              "zone",
              "example.com.",
              "qtype",
              "A",
              "rcode",
              "NOERROR",
              "transport",
              "udp"));
      assertEquals(
          total,
          value(
              m,
              REQUESTS,
              "zone",
              "example.com.",
              "qtype",
              "AAAA",
              "rcode",
              "NXDOMAIN",
              "transport",
              "tcp"));
      assertEquals(total + 1, value(m, DURATION + "_count", "transport", "udp"));
      assertEquals(total, value(m, DURATION + "_count", "transport", "tcp"));
      assertEquals(total + 1, value(m, DURATION + "_bucket", "transport", "udp", "le", "2.5E-5"));
      assertEquals(0, value(m, DURATION + "_bucket", "transport", "tcp", "le", "5.0E-5"));
      assertEquals(total, value(m, DURATION + "_bucket", "transport", "tcp", "le", "1.0E-4"));
      assertEquals((total + 1) * 10e-6, value(m, DURATION + "_sum", "transport", "udp"), 1e-9);
      assertEquals(60e-6, value(m, DURATION + "_max", "transport", "tcp"), 1e-12);
      for (Thread th : started) {
        th.join();
      }
    }
  }

  @Test
  void theMaxCoversTheLastTwoToThreeWindowsOfFortySeconds() {
    try (PrometheusMetrics metrics = new PrometheusMetrics()) {
      var g = metrics.gslb();
      long now = System.nanoTime();
      long window = TimeUnit.SECONDS.toNanos(40);
      // A slow query four windows ago has expired; a faster one in the previous window has not.
      g.dnsQuery("example.com.", 1, 0, false, 900_000_000, now - 4 * window);
      g.dnsQuery("example.com.", 1, 0, false, 2_000_000, now - window);
      g.dnsQuery("example.com.", 1, 0, false, 1_000, now);
      Map<String, Double> m = PrometheusText.parse(metrics.scrape());
      assertEquals(0.002, value(m, DURATION + "_max", "transport", "udp"), 1e-12);
      assertEquals(3, value(m, DURATION + "_count", "transport", "udp"));
    }
  }
}
