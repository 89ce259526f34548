package io.sluice.probe.testing;

import io.sluice.core.spi.GslbMetrics;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the probe metrics a test asserts on. */
public final class RecordingMetrics implements GslbMetrics {
  /** One finished check. */
  public record CheckEvent(String kind, boolean ok, String reason) {}

  public final List<CheckEvent> checks = new CopyOnWriteArrayList<>();
  public final List<String> verdictChanges = new CopyOnWriteArrayList<>();
  public final List<String> pathEvents = new CopyOnWriteArrayList<>();

  @Override
  public void probeCheck(String kind, boolean ok, String reason, long nanos) {
    checks.add(new CheckEvent(kind, ok, reason));
  }

  @Override
  public void verdictChange(String endpoint, String from, String to) {
    verdictChanges.add(endpoint + " " + from + "->" + to);
  }

  @Override
  public void probePathImpaired(String vantage, boolean impaired) {
    pathEvents.add(vantage + (impaired ? " impaired" : " restored"));
  }

  /** Failed checks of {@code kind} so far. */
  public long failures(String kind) {
    return checks.stream().filter(c -> c.kind().equals(kind) && !c.ok()).count();
  }
}
