package io.sluice.probe.testing;

import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.CheckType;
import io.sluice.probe.check.Check;
import io.sluice.probe.check.CheckResult;
import io.sluice.probe.check.CheckSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A backend simulated on a {@link ManualTaskScheduler}'s clock, for timing that real sockets cannot
 * show on a manual clock: a check started while the backend is black-holed fails with a timeout
 * exactly when its timeout has passed on that clock, however the backend changes meanwhile. Every
 * check run is recorded with its type ({@code tcp}, {@code http}) and start time.
 */
public final class SimulatedBackend implements CheckSource {

  /** How the backend treats a check started now. */
  public enum Mode {
    ANSWERS,
    REFUSES,
    BLACK_HOLE
  }

  /** One started check run. */
  public record Run(CheckType type, long startNanos) {}

  private final ManualTaskScheduler clock;
  private volatile Mode mode = Mode.ANSWERS;

  /** Every check run started, in order. */
  public final List<Run> runs = new CopyOnWriteArrayList<>();

  public SimulatedBackend(ManualTaskScheduler clock) {
    this.clock = clock;
  }

  public void mode(Mode m) {
    mode = m;
  }

  /** Start times of the runs of {@code type} started at or after {@code fromNanos}. */
  public List<Long> starts(CheckType type, long fromNanos) {
    return runs.stream()
        .filter(r -> r.type().equals(type) && r.startNanos() >= fromNanos)
        .map(Run::startNanos)
        .toList();
  }

  @Override
  public Check create(CheckConfig c, String endpointAddress, Duration layerTimeout) {
    long timeoutNanos = c.timeoutOr(layerTimeout).toNanos();
    return new Check() {
      @Override
      public CompletableFuture<CheckResult> run() {
        runs.add(new Run(c.type(), clock.ticker().nanoTime()));
        return switch (mode) {
          case ANSWERS -> CompletableFuture.completedFuture(CheckResult.pass(1_000_000));
          case REFUSES ->
              CompletableFuture.completedFuture(
                  CheckResult.fail(100_000, "refused", "connection refused"));
          case BLACK_HOLE -> {
            CompletableFuture<CheckResult> f = new CompletableFuture<>();
            clock.schedule(
                () ->
                    f.complete(
                        CheckResult.fail(
                            timeoutNanos,
                            "timeout",
                            "no answer within " + timeoutNanos / 1_000_000 + " ms")),
                timeoutNanos);
            yield f;
          }
        };
      }

      @Override
      public String describe() {
        return "simulated " + c.type() + " " + endpointAddress;
      }
    };
  }

  @Override
  public Check canary(String spec) {
    return create(CheckConfig.tcp(1), spec, Duration.ofSeconds(2));
  }
}
