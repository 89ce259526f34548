package io.sluice.core.dnssec;

import io.sluice.core.control.Actor;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The DNSSEC keys of the signed zones as the admin API shows them, and the rollover steps it runs;
 * implemented by the DNS module, which owns the key files.
 */
public interface DnssecKeyManager {

  /** No signed zones: what a node without DNSSEC shows. */
  DnssecKeyManager NONE =
      new DnssecKeyManager() {
        @Override
        public List<ZoneKeysView> zones() {
          return List.of();
        }

        @Override
        public Optional<ZoneKeysView> zone(String zone) {
          return Optional.empty();
        }

        @Override
        public StepOutcome step(Actor actor, String zone, RolloverStep step, String reason) {
          throw new IllegalArgumentException("zone: '" + zone + "' is not a signed zone");
        }
      };

  /** Every signed zone's keys, in configuration order. */
  List<ZoneKeysView> zones();

  /** The keys of {@code zone} (a domain name, trailing dot optional), or empty if not signed. */
  Optional<ZoneKeysView> zone(String zone);

  /**
   * Runs {@code step} of a rollover of {@code zone} for {@code actor} (audited with {@code
   * reason}), or refuses it saying why and, when only time stands in the way, from when it can run.
   *
   * @throws IllegalArgumentException when the zone is not signed
   * @throws IOException when the key files cannot be written (nothing changed)
   */
  StepOutcome step(Actor actor, String zone, RolloverStep step, String reason) throws IOException;

  /** What a step did, or why it did not run. */
  sealed interface StepOutcome {}

  /** The step ran: what it did, and the zone's keys after it. */
  record Done(String message, ZoneKeysView zone) implements StepOutcome {}

  /**
   * The step did not run: why, and the earliest moment it can (null when waiting does not help).
   */
  record Refused(String message, Instant notBefore) implements StepOutcome {}

  /**
   * One signed zone's keys, the DS records of its SEP keys and the rollover steps possible next.
   */
  record ZoneKeysView(
      String zone,
      List<KeyView> keys,
      List<String> ds,
      List<NextStep> next,
      List<String> problems) {
    public ZoneKeysView {
      keys = List.copyOf(keys);
      ds = List.copyOf(ds);
      next = List.copyOf(next);
      problems = List.copyOf(problems);
    }
  }

  /**
   * One key: tag, algorithm, role, state at the time of the view, its timing (null: unset), whether
   * its CDS/CDNSKEY are published, its DS record (SEP keys; SHA-256), and its file.
   */
  record KeyView(
      int tag,
      int algorithm,
      String algorithmName,
      KeyRole role,
      KeyState state,
      Instant created,
      Instant publish,
      Instant activate,
      Instant inactive,
      Instant delete,
      Instant syncPublish,
      Instant syncDelete,
      boolean cds,
      String ds,
      String file) {}

  /** A rollover step the zone's keys allow, and from when (now or later). */
  record NextStep(RolloverStep step, Instant notBefore, String what) {}
}
