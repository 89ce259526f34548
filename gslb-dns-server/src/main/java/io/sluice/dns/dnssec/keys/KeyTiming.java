package io.sluice.dns.dnssec.keys;

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
 * means it to be used.
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
    return reached(publish, now) && !reached(delete, now, false);
  }

  /** True when the key signs at {@code now}. */
  public boolean active(Instant now) {
    return reached(activate, now) && !reached(inactive, now, false) && published(now);
  }

  /** True when the key's CDS and CDNSKEY belong at the apex at {@code now}. */
  public boolean syncPublished(Instant now) {
    return syncPublish.isPresent() && reached(syncPublish, now) && !reached(syncDelete, now, false);
  }

  /** Every instant set, in no particular order: the moments the key's state can change. */
  public List<Instant> instants() {
    return Stream.of(publish, activate, inactive, delete, syncPublish, syncDelete)
        .flatMap(Optional::stream)
        .toList();
  }

  private static boolean reached(Optional<Instant> at, Instant now) {
    return reached(at, now, true);
  }

  // An absent time means "from the start" for publish/activate and "never" for the ends.
  private static boolean reached(Optional<Instant> at, Instant now, boolean whenAbsent) {
    return at.map(t -> !now.isBefore(t)).orElse(whenAbsent);
  }
}
