package io.sluice.dns.dnssec.keys;

import io.sluice.core.dnssec.KeyRole;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.Name;

/**
 * All DNSSEC keys of one zone as loaded at one moment; which of them publish and sign is a function
 * of time.
 *
 * <p>Roles: a zone with only SEP keys uses each as a combined signing key (it signs every RRset). A
 * zone with SEP and non-SEP keys signs the DNSKEY, CDS and CDNSKEY RRsets with the SEP keys (KSKs)
 * and everything else with the non-SEP keys (ZSKs).
 */
public record ZoneKeys(Name zone, List<SigningKey> keys) {

  public ZoneKeys {
    keys = List.copyOf(keys);
  }

  /** The DNSKEY RRset members at {@code now}. */
  public List<DNSKEYRecord> published(Instant now) {
    return keys.stream().filter(k -> k.timing().published(now)).map(SigningKey::dnskey).toList();
  }

  /** Keys that sign the DNSKEY, CDS and CDNSKEY RRsets at {@code now}. */
  public List<SigningKey> keySigning(Instant now) {
    return keys.stream().filter(k -> k.secureEntryPoint() && k.timing().active(now)).toList();
  }

  /** Keys that sign every other RRset at {@code now}. */
  public List<SigningKey> zoneSigning(Instant now) {
    List<SigningKey> zsks =
        keys.stream().filter(k -> !k.secureEntryPoint() && k.timing().active(now)).toList();
    return zsks.isEmpty() ? keySigning(now) : zsks;
  }

  /** Keys whose CDS and CDNSKEY are published at the apex at {@code now}. */
  public List<SigningKey> syncPublished(Instant now) {
    return keys.stream()
        .filter(k -> k.secureEntryPoint() && k.timing().syncPublished(now))
        .toList();
  }

  /**
   * The first instant after {@code now} at which a key's timing changes what is published or signs,
   * or empty when no change is scheduled.
   */
  public Optional<Instant> nextChange(Instant now) {
    return keys.stream()
        .flatMap(k -> k.timing().instants().stream())
        .filter(t -> t.isAfter(now))
        .min(Instant::compareTo);
  }

  /** The role {@code key} plays here: a SEP key is a KSK beside a ZSK, else a CSK. */
  public KeyRole role(SigningKey key) {
    if (!key.secureEntryPoint()) {
      return KeyRole.ZSK;
    }
    return keys.stream().anyMatch(k -> !k.secureEntryPoint()) ? KeyRole.KSK : KeyRole.CSK;
  }
}
