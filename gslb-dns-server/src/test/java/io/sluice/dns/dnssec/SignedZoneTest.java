package io.sluice.dns.dnssec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.spi.Ticker;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeys;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneCompiler;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * The signer's bookkeeping on a manual clock: signatures refreshed before they expire, the online
 * budget, and GSLB answer RRsets signed once per distinct (owner, type, TTL, rdata).
 */
class SignedZoneTest {
  private static final Name ORIGIN = Name.fromConstantString("example.test.");
  private static final String CONFIG =
      """
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
      """;

  /** A clock that moves only when told. */
  static final class ManualTicker implements Ticker {
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final AtomicLong millis = new AtomicLong(1_800_000_000_000L);

    void advance(Duration d) {
      nanos.addAndGet(d.toNanos());
      millis.addAndGet(d.toMillis());
    }

    @Override
    public long nanoTime() {
      return nanos.get();
    }

    @Override
    public long currentTimeMillis() {
      return millis.get();
    }
  }

  private static SignedZone signed(ManualTicker ticker, SigningPolicy policy) throws Exception {
    Zone zone =
        ZoneCompiler.compile(ConfigLoader.parse(CONFIG, "t.yaml", Path.of(".")), "t.yaml")
            .zones()
            .get(0);
    SigningKey key = TestKeys.csk(ORIGIN, DNSSEC.Algorithm.ED25519);
    ZoneKeys keys = new ZoneKeys(ORIGIN, List.of(key));
    return SignedZone.sign(zone, new RrsetSigner(keys, policy, ticker), ticker);
  }

  @Test
  void staticSignaturesAreRefreshedBeforeTheyExpire() throws Exception {
    ManualTicker ticker = new ManualTicker();
    SignedZone z = signed(ticker, SigningPolicy.DEFAULT);
    Name www = Name.fromString("www.example.test.");
    RRSIGRecord first = z.signatures(www, Type.A)[0];
    Object generation = z.generation();
    // Valid 14 days less up to a day of jitter, inception an hour back.
    Duration validity = Duration.between(first.getTimeSigned(), first.getExpire());
    assertTrue(validity.compareTo(Duration.ofDays(13)) >= 0, validity.toString());
    assertFalse(z.refreshIfDue());
    ticker.advance(Duration.ofDays(5));
    assertFalse(z.refreshIfDue(), "more than the refresh period of 7 days is left");
    ticker.advance(Duration.ofDays(2));
    assertTrue(z.refreshIfDue());
    RRSIGRecord second = z.signatures(www, Type.A)[0];
    assertTrue(second.getExpire().isAfter(first.getExpire()));
    assertNotSame(generation, z.generation(), "answers encoded with the old signatures go");
    // The new signature verifies against the key.
    RRset set = new RRset(new ARecord(www, DClass.IN, 3600, InetAddress.getByName("192.0.2.80")));
    DNSSEC.verify(
        set,
        second,
        z.signer().keys().keys().get(0).dnskey(),
        second.getTimeSigned().plusSeconds(1));
  }

  @Test
  void aReloadKeepsTheSignaturesOfUnchangedRrsets() throws Exception {
    ManualTicker ticker = new ManualTicker();
    SignedZone first = signed(ticker, SigningPolicy.DEFAULT);
    Name www = Name.fromString("www.example.test.");
    SignedZone again = SignedZone.sign(first.zone(), first.signer(), ticker, first);
    assertSame(first.signatures(www, Type.A)[0], again.signatures(www, Type.A)[0]);
    // Once due for refresh, a reload signs it anew.
    ticker.advance(Duration.ofDays(8));
    SignedZone later = SignedZone.sign(first.zone(), first.signer(), ticker, first);
    assertNotSame(first.signatures(www, Type.A)[0], later.signatures(www, Type.A)[0]);
  }

  @Test
  void onlineSigningStopsAtTheBudgetAndResumesWithTime() throws Exception {
    ManualTicker ticker = new ManualTicker();
    SignedZone z = signed(ticker, SigningPolicy.DEFAULT.withOnlineSignaturesPerSecond(5));
    int signed = 0;
    for (int i = 0; i < 50; i++) {
      Name n = Name.fromString("r" + i + ".example.test.");
      signed += z.nsec(n, n, new int[] {Type.RRSIG, Type.NSEC}) != null ? 1 : 0;
    }
    assertTrue(signed >= 5 && signed <= 6, "one second's worth, was " + signed);
    assertEquals(50 - signed, z.refusedSignatures());
    // A name signed already is served from the cache, budget or not.
    Name first = Name.fromString("r0.example.test.");
    assertNotNull(z.nsec(first, first, new int[] {Type.RRSIG, Type.NSEC}));
    Name fresh = Name.fromString("fresh.example.test.");
    assertNull(z.nsec(fresh, fresh, new int[] {Type.RRSIG, Type.NSEC}));
    ticker.advance(Duration.ofSeconds(1));
    assertNotNull(z.nsec(fresh, fresh, new int[] {Type.RRSIG, Type.NSEC}));
  }

  @Test
  void answerRrsetsAreSignedOncePerDistinctContent() throws Exception {
    ManualTicker ticker = new ManualTicker();
    SignedZone z = signed(ticker, SigningPolicy.DEFAULT);
    Name app = Name.fromString("app.example.test.");
    List<Record> east = List.of(a(app, "198.51.100.1"), a(app, "198.51.100.3"));
    List<Record> eastReordered = List.of(a(app, "198.51.100.3"), a(app, "198.51.100.1"));
    assertTrue(z.prepare(app, Type.A, 60, east));
    assertFalse(z.prepare(app, Type.A, 60, eastReordered), "same RRset, other order");
    assertTrue(z.prepare(app, Type.A, 60, List.of(a(app, "198.51.100.2"))));
    assertTrue(z.prepare(app, Type.A, 30, east), "another configured TTL is another RRSIG");
    assertEquals(3, z.answerSets());
    assertEquals(0, z.onlineSignatures());
    RRSIGRecord sig = z.answer(app, Type.A, 60, eastReordered, true)[0];
    assertEquals(60, sig.getOrigTTL());
    assertEquals(0, z.onlineSignatures(), "served from what was prepared");
  }

  private static Record a(Name owner, String address) throws Exception {
    return new ARecord(owner, DClass.IN, 5, InetAddress.getByName(address));
  }
}
