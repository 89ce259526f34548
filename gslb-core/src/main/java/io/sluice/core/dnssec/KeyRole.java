package io.sluice.core.dnssec;

/** What a DNSSEC key signs: the DNSKEY RRset (KSK), everything else (ZSK), or both (CSK). */
public enum KeyRole {
  /**
   * Key-signing key: SEP flag, signs the DNSKEY, CDS and CDNSKEY RRsets; the parent's DS names it.
   */
  KSK,
  /** Zone-signing key: no SEP flag, signs every other RRset. */
  ZSK,
  /** Combined signing key: SEP flag in a zone without ZSKs, signs everything. */
  CSK;

  /** The DNSKEY flags of a new key of this role: zone key (256), plus SEP (1) for KSK and CSK. */
  public int flags() {
    return this == ZSK ? 256 : 257;
  }

  /** True for the roles whose DS record the parent holds. */
  public boolean secureEntryPoint() {
    return this != ZSK;
  }
}
