package io.sluice.core.dnssec;

/** Where a DNSSEC key stands in its life at one moment, computed from its timing metadata. */
public enum KeyState {
  /** Created, its DNSKEY not yet published. */
  GENERATED,
  /** Its DNSKEY is published; it does not sign (yet). */
  PUBLISHED,
  /** Published and signing. */
  ACTIVE,
  /** No longer signing; its DNSKEY stays published until caches forgot its signatures. */
  RETIRED,
  /** Its DNSKEY is withdrawn from the zone. */
  REMOVED
}
