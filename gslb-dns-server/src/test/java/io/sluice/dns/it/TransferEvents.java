package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.TransferKind;
import io.sluice.core.spi.TransferOutcome;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The zone transfer and NOTIFY outcomes a server reports to its metrics, as lines {@code "xfr.test.
 * AXFR FULL"} and {@code "xfr.test. NOTIFY answered"}.
 */
final class TransferEvents implements GslbMetrics {
  final List<String> events = new CopyOnWriteArrayList<>();

  @Override
  public void zoneTransfer(String zone, TransferKind kind, TransferOutcome outcome) {
    events.add(zone + " " + kind + " " + outcome);
  }

  @Override
  public void notifySent(String zone, boolean ok) {
    events.add(zone + " NOTIFY " + (ok ? "answered" : "failed"));
  }

  boolean contains(String event) {
    return events.contains(event);
  }

  /** Waits up to 30 s for {@code event}. */
  void await(String event) throws InterruptedException {
    await(event, 1);
  }

  /** Waits up to 30 s for {@code event} to have happened {@code times} times. */
  void await(String event, int times) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (events.stream().filter(event::equals).count() < times) {
      if (System.nanoTime() > deadline) {
        fail("no '" + event + "' in " + events);
      }
      Thread.sleep(20);
    }
  }

  @Override
  public String toString() {
    return events.toString();
  }
}
