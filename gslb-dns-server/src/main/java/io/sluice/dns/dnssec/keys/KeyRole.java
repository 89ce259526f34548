package io.sluice.dns.dnssec.keys;

import org.xbill.DNS.DNSKEYRecord;

/** What a key signs: the DNSKEY RRset (KSK), everything else (ZSK), or both (CSK). */
public enum KeyRole {
  /**
   * Key-signing key: SEP flag, signs the DNSKEY, CDS and CDNSKEY RRsets; the parent's DS names it.
   */
  KSK,
  /** Zone-signing key: no SEP flag, signs every other RRset. */
  ZSK,
  /** Combined signing key: SEP flag in a zone without ZSKs, signs everything. */
  CSK;

  /** The DNSKEY flags of a new key of this role. */
  public int flags() {
    return this == ZSK
        ? DNSKEYRecord.Flags.ZONE_KEY
        : DNSKEYRecord.Flags.ZONE_KEY | DNSKEYRecord.Flags.SEP_KEY;
  }

  /** The role {@code key} plays among {@code keys} (a SEP key is a KSK only beside a ZSK). */
  public static KeyRole of(SigningKey key, ZoneKeys keys) {
    if (!key.secureEntryPoint()) {
      return ZSK;
    }
    return keys.keys().stream().anyMatch(k -> !k.secureEntryPoint()) ? KSK : CSK;
  }
}
