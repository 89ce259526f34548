package io.sluice.dns.dnssec.keys;

import java.time.Instant;

/** Where a key stands in its life at one moment, computed from its {@link KeyTiming}. */
public enum KeyState {
  /** Created, its DNSKEY not yet published. */
  GENERATED,
  /** Its DNSKEY is published; it does not sign yet. */
  PUBLISHED,
  /** Published and signing. */
  ACTIVE,
  /** No longer signing; its DNSKEY stays published until caches forgot its signatures. */
  RETIRED,
  /** Its DNSKEY is withdrawn from the zone. */
  REMOVED;

  /** The state of a key with {@code timing} at {@code now}. */
  public static KeyState of(KeyTiming timing, Instant now) {
    if (timing.delete().isPresent() && !now.isBefore(timing.delete().get())) {
      return REMOVED;
    }
    if (!timing.published(now)) {
      return GENERATED;
    }
    if (timing.active(now)) {
      return ACTIVE;
    }
    return timing.inactive().isPresent() && !now.isBefore(timing.inactive().get())
        ? RETIRED
        : PUBLISHED;
  }
}
