package io.sluice.dns.dnssec.keys;

import java.security.PrivateKey;
import java.util.Objects;
import org.xbill.DNS.DNSKEYRecord;

/** One DNSSEC key of a zone: its public DNSKEY, its private half and when it is used. */
public record SigningKey(DNSKEYRecord dnskey, PrivateKey privateKey, KeyTiming timing) {

  public SigningKey {
    Objects.requireNonNull(dnskey, "dnskey");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(timing, "timing");
  }

  /** The key tag that RRSIGs and DS records name. */
  public int tag() {
    return dnskey.getFootprint();
  }

  /** The DNSSEC algorithm number (13 ECDSAP256SHA256, 15 Ed25519). */
  public int algorithm() {
    return dnskey.getAlgorithm();
  }

  /** True for a key with the SEP flag: a KSK, or a combined signing key (CSK). */
  public boolean secureEntryPoint() {
    return (dnskey.getFlags() & DNSKEYRecord.Flags.SEP_KEY) != 0;
  }
}
