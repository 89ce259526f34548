package io.sluice.dns.dnssec;

import io.sluice.core.spi.Ticker;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Type;

/**
 * Signs RRsets of one zone with the keys active now: the DNSKEY, CDS and CDNSKEY RRsets with the
 * key-signing keys, every other RRset with the zone-signing keys (a combined key does both).
 * Thread-safe; every call reads the clock once.
 */
public final class RrsetSigner {
  private final ZoneKeys keys;
  private final SigningPolicy policy;
  private final Ticker ticker;

  public RrsetSigner(ZoneKeys keys, SigningPolicy policy, Ticker ticker) {
    this.keys = keys;
    this.policy = policy;
    this.ticker = ticker;
  }

  /** The zone's keys. */
  public ZoneKeys keys() {
    return keys;
  }

  /** The signing policy. */
  public SigningPolicy policy() {
    return policy;
  }

  /** The current time of this signer's clock. */
  public Instant now() {
    return Instant.ofEpochMilli(ticker.currentTimeMillis());
  }

  /** Whether {@code type} is signed by the key-signing keys. */
  static boolean keySet(int type) {
    return type == Type.DNSKEY || type == Type.CDS || type == Type.CDNSKEY;
  }

  /**
   * The signatures of {@code set} by every key that signs its type now; the expiry is spread by a
   * random part of the jitter so a zone signed at once is not refreshed at once.
   */
  public RRSIGRecord[] sign(RRset set) {
    Instant now = now();
    List<SigningKey> signers = keySet(set.getType()) ? keys.keySigning(now) : keys.zoneSigning(now);
    long jitter = policy.jitter().toSeconds();
    Instant expire =
        now.plus(policy.validity())
            .minusSeconds(jitter > 0 ? ThreadLocalRandom.current().nextLong(jitter + 1) : 0);
    Instant inception = now.minus(policy.inceptionOffset());
    List<RRSIGRecord> out = new ArrayList<>(signers.size());
    for (SigningKey k : signers) {
      try {
        out.add(DNSSEC.sign(set, k.dnskey(), k.privateKey(), inception, expire));
      } catch (DNSSEC.DNSSECException e) {
        throw new IllegalStateException(
            "cannot sign "
                + set.getName()
                + "/"
                + Type.string(set.getType())
                + " with key "
                + k.tag(),
            e);
      }
    }
    return out.toArray(new RRSIGRecord[0]);
  }
}
