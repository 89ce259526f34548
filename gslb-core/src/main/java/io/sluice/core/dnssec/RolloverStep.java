package io.sluice.core.dnssec;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.core.config.Spellings;

/**
 * The steps of the two key rollovers, in order (docs/dnssec.md#rollover): ZSK pre-publication and
 * KSK (or CSK) double-DS. Each step is refused until the TTLs of the records it replaces expired.
 */
public enum RolloverStep {
  /** Publishes a new ZSK beside the active one; it does not sign yet. */
  @JsonProperty("zsk-publish")
  ZSK_PUBLISH,
  /** Once the new DNSKEY is in every cache: the new ZSK signs, the old one retires. */
  @JsonProperty("zsk-activate")
  ZSK_ACTIVATE,
  /** Once the old ZSK's signatures are gone from caches: its DNSKEY is withdrawn. */
  @JsonProperty("zsk-remove")
  ZSK_REMOVE,
  /** Publishes a new KSK (or CSK) that signs beside the old one, and CDS/CDNSKEY for both. */
  @JsonProperty("ksk-publish")
  KSK_PUBLISH,
  /**
   * The operator confirms the parent serves the new key's DS: the old key's CDS is withdrawn and it
   * stops signing once the parent's DS TTL has passed.
   */
  @JsonProperty("ksk-ds-seen")
  KSK_DS_SEEN,
  /** Once the old key stopped signing and its records expired from caches: its DNSKEY goes. */
  @JsonProperty("ksk-remove")
  KSK_REMOVE;

  private final String text = Spellings.of(this);

  /** The step as the API and {@code sluice ctl keys} spell it. */
  @Override
  public String toString() {
    return text;
  }

  /** The step spelled {@code text}, or null when there is none. */
  public static RolloverStep of(String text) {
    for (RolloverStep s : values()) {
      if (s.text.equals(text)) {
        return s;
      }
    }
    return null;
  }
}
