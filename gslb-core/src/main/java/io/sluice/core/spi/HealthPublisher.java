package io.sluice.core.spi;

import io.sluice.core.health.HealthView;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * How a batch of verdict changes reaches the snapshot store. The probe module publishes through it;
 * the traffic system provides one that publishes the controller's reaction to the batch (a
 * failover, a short TTL) in the same snapshot, so no answer ever follows a new verdict without it.
 */
@FunctionalInterface
public interface HealthPublisher {
  /**
   * Applies {@code change} to the current health view and publishes the result; publishes nothing
   * when it returns its input. {@code recorded} runs once with the snapshot the batch goes out in,
   * before anything that reacts to the batch is recorded, so the audit log reads cause before
   * effect. Never fails for the controller's sake: the verdicts are published in any case.
   */
  Published publish(UnaryOperator<HealthView> change, Consumer<Published> recorded);

  /** The snapshot a batch was published in, and the version it replaced. */
  record Published(long versionBefore, Snapshot after) {}

  /** Publishes the health view alone, with nothing reacting to it in the same snapshot. */
  static HealthPublisher direct(SnapshotStore store) {
    return (change, recorded) -> {
      Published p = publish(store, change);
      recorded.accept(p);
      return p;
    };
  }

  private static Published publish(SnapshotStore store, UnaryOperator<HealthView> change) {
    // The version this batch was applied to, read from the snapshot the store replaced: other
    // writers publish too, so it need not be the one current before the call.
    long[] before = new long[1];
    Snapshot after =
        store.update(
            s -> {
              before[0] = s.version();
              return applied(s, change);
            });
    return new Published(before[0], after);
  }

  /** {@code s} with {@code change} applied to its health view; {@code s} when nothing changes. */
  static Snapshot applied(Snapshot s, UnaryOperator<HealthView> change) {
    HealthView h = change.apply(s.health());
    return h == s.health() ? s : s.withHealth(h);
  }
}
