package io.sluice.dns.dnssec;

import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.dnssec.keys.KeyDirectory;
import io.sluice.dns.response.ServedZones;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background side of signing, on its own thread: every second it checks whether the keys of a
 * signed zone changed (a rollover step, a timing instant the key directory's ticks noticed) and
 * then has the configuration built and published again so the DNSKEY RRset and every signature
 * follow; every minute it re-signs what reaches its refresh time (see {@link
 * SignedZone#refreshIfDue}). Nothing here runs on the query path.
 */
public final class SigningMaintenance implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SigningMaintenance.class);
  private static final int REFRESH_EVERY_TICKS = 60;

  private final ScheduledExecutorService thread;
  private final AtomicBoolean keysChanged = new AtomicBoolean();
  private int ticks;

  private SigningMaintenance(SnapshotStore store, KeyDirectory keys, Runnable republish) {
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "dnssec-signing");
              t.setDaemon(true);
              return t;
            });
    // Timing instants up to now (a key generated on this start) are what was just signed with.
    keys.tick();
    keys.addListener(zone -> keysChanged.set(true));
    thread.scheduleWithFixedDelay(() -> tick(store, keys, republish), 1, 1, TimeUnit.SECONDS);
  }

  /**
   * Starts the maintenance of the signed zones published in {@code store}; {@code republish} builds
   * and publishes the current configuration again (after a key change).
   */
  public static SigningMaintenance start(
      SnapshotStore store, KeyDirectory keys, Runnable republish) {
    return new SigningMaintenance(store, keys, republish);
  }

  private void tick(SnapshotStore store, KeyDirectory keys, Runnable republish) {
    try {
      if (keysChanged.getAndSet(false)) {
        log.info("DNSSEC keys changed: signing the zones again");
        republish.run();
      }
      if (++ticks % REFRESH_EVERY_TICKS == 0) {
        refresh(store.current());
      }
    } catch (RuntimeException e) {
      log.error("DNSSEC signing maintenance failed; retrying in a second", e);
    }
  }

  /** Re-signs what is due in every signed zone of {@code s}; returns how many zones changed. */
  public static int refresh(Snapshot s) {
    ServedZones served = s.artifacts().get(ServedZones.class);
    if (served == null) {
      return 0;
    }
    int changed = 0;
    for (SignedZone z : served.signed().zones()) {
      if (z.refreshIfDue()) {
        changed++;
        log.info("refreshed the signatures of {}", z.zone().origin());
      }
    }
    return changed;
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
