package io.sluice.cluster;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The background threads of the cluster parts: one daemon thread each, named for thread dumps. */
final class Daemons {
  private Daemons() {}

  /** A single-thread scheduler whose thread is a daemon named {@code name}. */
  static ScheduledExecutorService single(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
