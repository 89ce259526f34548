package io.sluice.dns.dnssec.keys;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.dnssec.KeyRole;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.time.Duration;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;

/** Makes new DNSSEC keys with the JDK's own key-pair generators (EC P-256, Ed25519). */
public final class KeyGenerator {
  private KeyGenerator() {}

  /** A new key of {@code zone} with the given algorithm, role, DNSKEY TTL and timing. */
  public static SigningKey generate(
      Name zone, DnssecAlgorithm algorithm, KeyRole role, Duration ttl, KeyTiming timing) {
    try {
      KeyPair pair = KeyCrypto.generate(algorithm);
      DNSKEYRecord dnskey =
          new DNSKEYRecord(
              zone,
              DClass.IN,
              ttl.toSeconds(),
              role.flags(),
              DNSKEYRecord.Protocol.DNSSEC,
              algorithm.number(),
              pair.getPublic());
      return new SigningKey(dnskey, pair.getPrivate(), timing);
    } catch (GeneralSecurityException | DNSSEC.DNSSECException e) {
      // Both algorithms are part of every Java 17 runtime.
      throw new IllegalStateException("cannot generate a " + algorithm + " key", e);
    }
  }
}
