package io.sluice.dns.dnssec;

import io.sluice.dns.dnssec.keys.KeyTiming;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeySource;
import io.sluice.dns.dnssec.keys.ZoneKeys;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;

/** Keys made in memory, as the key files of a zone would hold them. */
final class TestKeys {
  private TestKeys() {}

  /** A combined signing key (SEP flag) of {@code algorithm} (13 or 15) for {@code zone}. */
  static SigningKey csk(Name zone, int algorithm) throws Exception {
    return key(zone, algorithm, DNSKEYRecord.Flags.ZONE_KEY | DNSKEYRecord.Flags.SEP_KEY);
  }

  /** A zone-signing key (no SEP flag). */
  static SigningKey zsk(Name zone, int algorithm) throws Exception {
    return key(zone, algorithm, DNSKEYRecord.Flags.ZONE_KEY);
  }

  private static SigningKey key(Name zone, int algorithm, int flags) throws Exception {
    KeyPair pair;
    if (algorithm == DNSSEC.Algorithm.ED25519) {
      pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    } else {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      pair = g.generateKeyPair();
    }
    DNSKEYRecord dnskey =
        new DNSKEYRecord(
            zone,
            DClass.IN,
            3600,
            flags,
            DNSKEYRecord.Protocol.DNSSEC,
            algorithm,
            pair.getPublic());
    return new SigningKey(dnskey, pair.getPrivate(), KeyTiming.always());
  }

  /** A key source holding {@code keys} for their zones. */
  static ZoneKeySource source(Map<Name, List<SigningKey>> keys) {
    return zone -> Optional.ofNullable(keys.get(zone)).map(k -> new ZoneKeys(zone, k));
  }
}
