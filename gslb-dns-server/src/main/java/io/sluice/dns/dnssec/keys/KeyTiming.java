package io.sluice.dns.dnssec.keys;

import io.sluice.core.dnssec.KeyState;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The timing metadata of one DNSSEC key, with the meaning BIND gives its key-file fields.
 *
 * <p>A key file without timing metadata (as {@code ldns-keygen} writes them) is published and
 * active from the start and never retired: an operator who drops such a key into the key directory
 * means it to be used. A key with any publish or retire time set follows BIND: an unset {@code
 * Publish} or {@code Activate} means "not yet" (a key pre-published for a rollover has a publish
 * time and no activation time until the rollover step activates it).
 */
public record KeyTiming(
    Optional<Instant> created,
    Optional<Instant> publish,
    Optional<Instant> activate,
    Optional<Instant> inactive,
    Optional<Instant> delete,
    Optional<Instant> syncPublish,
    Optional<Instant> syncDelete) {

  /** Timing of a key that is published and active from the start and never retired. */
  public static KeyTiming always() {
    return new KeyTiming(
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /** Timing of a new key created, published and active at {@code now}, as BIND writes it. */
  public static KeyTiming startingAt(Instant now) {
    // Key files hold whole seconds: a new key reads back equal to what was written.
    Optional<Instant> at = Optional.of(now.truncatedTo(ChronoUnit.SECONDS));
    return new KeyTiming(
        at, at, at, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** True when the key's DNSKEY belongs in the zone's DNSKEY RRset at {@code now}. */
  public boolean published(Instant now) {
    return reached(publish, now, legacy()) && !reached(delete, now, false);
  }

  /** True when the key signs at {@code now}. */
  public boolean active(Instant now) {
    return reached(activate, now, legacy()) && !reached(inactive, now, false) && published(now);
  }

  /** True for a key without any publish, activate or retire time: always published and active. */
  public boolean legacy() {
    return publish.isEmpty()
        && activate.isEmpty()
        && inactive.isEmpty()
        && delete.isEmpty()
        && syncPublish.isEmpty()
        && syncDelete.isEmpty();
  }

  /** True when the key's CDS and CDNSKEY belong at the apex at {@code now}. */
  public boolean syncPublished(Instant now) {
    return reached(syncPublish, now, false) && !reached(syncDelete, now, false);
  }

  /** Where the key stands at {@code now}. */
  public KeyState state(Instant now) {
    if (reached(delete, now, false)) {
      return KeyState.REMOVED;
    }
    if (!published(now)) {
      return KeyState.GENERATED;
    }
    if (active(now)) {
      return KeyState.ACTIVE;
    }
    return reached(inactive, now, false) ? KeyState.RETIRED : KeyState.PUBLISHED;
  }

  /** This timing with {@code publish} set to {@code at}. */
  public KeyTiming withPublish(Instant at) {
    return new KeyTiming(
        created, Optional.of(at), activate, inactive, delete, syncPublish, syncDelete);
  }

  /** This timing with {@code activate} set to {@code at}. */
  public KeyTiming withActivate(Instant at) {
    return new KeyTiming(
        created, publish, Optional.of(at), inactive, delete, syncPublish, syncDelete);
  }

  /** This timing with {@code inactive} set to {@code at}. */
  public KeyTiming withInactive(Instant at) {
    return new KeyTiming(
        created, publish, activate, Optional.of(at), delete, syncPublish, syncDelete);
  }

  /** This timing with {@code delete} set to {@code at}. */
  public KeyTiming withDelete(Instant at) {
    return new KeyTiming(
        created, publish, activate, inactive, Optional.of(at), syncPublish, syncDelete);
  }

  /** This timing with {@code syncPublish} set to {@code at}. */
  public KeyTiming withSyncPublish(Instant at) {
    return new KeyTiming(created, publish, activate, inactive, delete, Optional.of(at), syncDelete);
  }

  /** This timing with {@code syncDelete} set to {@code at}. */
  public KeyTiming withSyncDelete(Instant at) {
    return new KeyTiming(
        created, publish, activate, inactive, delete, syncPublish, Optional.of(at));
  }

  /** Every instant set, in no particular order: the moments the key's state can change. */
  public List<Instant> instants() {
    return Stream.of(publish, activate, inactive, delete, syncPublish, syncDelete)
        .flatMap(Optional::stream)
        .toList();
  }

  // An absent time means "from the start" for a legacy key's publish/activate, else "never".
  private static boolean reached(Optional<Instant> at, Instant now, boolean whenAbsent) {
    return at.map(t -> !now.isBefore(t)).orElse(whenAbsent);
  }
}
