package io.sluice.dns.dnssec;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.DenialMode;
import io.sluice.core.config.Problems;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.spi.Ticker;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeySource;
import io.sluice.dns.dnssec.keys.ZoneKeys;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneIndex;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.xbill.DNS.CDNSKEYRecord;
import org.xbill.DNS.CDSRecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TextParseException;

/**
 * The DNS module's signing step of building a configuration: puts each signed zone's DNSKEY (and
 * CDS/CDNSKEY while a key is being synchronised with the parent) at its apex, then signs the zones
 * as the transfer serial rule left them. Runs off the query path, before the swap.
 */
public final class ZoneSigning {
  private final Function<SluiceConfig, ZoneKeySource> keySources;
  private final Ticker ticker;
  private final int onlineSignaturesPerSecond;

  /**
   * Signing with the keys {@code keySources} finds for each configuration (the key directories of
   * its signed zones), on {@code ticker}'s clock.
   */
  public ZoneSigning(Function<SluiceConfig, ZoneKeySource> keySources, Ticker ticker) {
    this(keySources, ticker, SigningPolicy.DEFAULT.onlineSignaturesPerSecond());
  }

  /** As {@link #ZoneSigning(Function, Ticker)}, with another online signing budget per zone. */
  public ZoneSigning(
      Function<SluiceConfig, ZoneKeySource> keySources,
      Ticker ticker,
      int onlineSignaturesPerSecond) {
    this.keySources = keySources;
    this.ticker = ticker;
    this.onlineSignaturesPerSecond = onlineSignaturesPerSecond;
  }

  /** A zone about to be signed: its keys, policy and the TTL of its DNSKEY, CDS and CDNSKEY. */
  public record Plan(ZoneKeys keys, SigningPolicy policy, long dnskeyTtl) {}

  /**
   * The keys and policy of each signed zone of {@code config}, by origin.
   *
   * @throws ConfigException naming each signed zone without an active key or with a denial mode
   *     this server cannot serve
   */
  public Map<Name, Plan> plans(SluiceConfig config, String source) throws ConfigException {
    Problems problems = new Problems(source);
    Map<Name, Plan> out = new HashMap<>();
    ZoneKeySource keys = null;
    for (int i = 0; i < config.zones().size(); i++) {
      ZoneConfig zc = config.zones().get(i);
      if (!zc.signed()) {
        continue;
      }
      String path = Problems.child(Problems.index("zones", i), "dnssec");
      if (zc.dnssec().denial() != DenialMode.COMPACT) {
        problems.add(
            Problems.child(path, "denial"),
            "only compact denial is served; " + zc.dnssec().denial() + " is not implemented");
        continue;
      }
      Name origin;
      try {
        origin = Name.fromString(zc.origin(), Name.root);
      } catch (TextParseException e) {
        continue; // the zone compiler reports the origin
      }
      keys = keys != null ? keys : keySources.apply(config);
      Optional<ZoneKeys> zk = keys.keys(origin);
      Instant now = Instant.ofEpochMilli(ticker.currentTimeMillis());
      if (zk.isEmpty()
          || zk.get().zoneSigning(now).isEmpty()
          || zk.get().keySigning(now).isEmpty()) {
        problems.add(path, "zone " + zc.origin() + " is signed but has no active key");
        continue;
      }
      SigningPolicy policy =
          SigningPolicy.of(zc.dnssec()).withOnlineSignaturesPerSecond(onlineSignaturesPerSecond);
      out.put(origin, new Plan(zk.get(), policy, zc.dnssec().dnskeyTtl().toSeconds()));
    }
    problems.throwIfAny();
    return out;
  }

  /** {@code index} with the DNSKEY, CDS and CDNSKEY RRsets of each planned zone at its apex. */
  public ZoneIndex withKeyRecords(ZoneIndex index, Map<Name, Plan> plans) {
    if (plans.isEmpty()) {
      return index;
    }
    Instant now = Instant.ofEpochMilli(ticker.currentTimeMillis());
    List<Zone> zones = new ArrayList<>();
    for (Zone z : index.zones()) {
      Plan p = plans.get(z.origin());
      zones.add(p == null ? z : z.withApexRecords(apexRecords(z, p, now)));
    }
    return ZoneIndex.of(zones);
  }

  /** The DNSKEY RRset, and CDS and CDNSKEY for keys being synchronised, with their TTL. */
  static List<Record> apexRecords(Zone zone, Plan plan, Instant now) {
    ZoneKeys keys = plan.keys();
    long ttl = plan.dnskeyTtl();
    Name origin = zone.origin();
    List<Record> out = new ArrayList<>();
    for (DNSKEYRecord k : keys.published(now)) {
      out.add(
          new DNSKEYRecord(
              origin, DClass.IN, ttl, k.getFlags(), k.getProtocol(), k.getAlgorithm(), k.getKey()));
    }
    for (SigningKey k : keys.syncPublished(now)) {
      DNSKEYRecord d = k.dnskey();
      out.add(new CDSRecord(origin, DClass.IN, ttl, DNSSEC.Digest.SHA256, d));
      out.add(
          new CDNSKEYRecord(
              origin, DClass.IN, ttl, d.getFlags(), d.getProtocol(), d.getAlgorithm(), d.getKey()));
    }
    return out;
  }

  /** Signs each planned zone of {@code index} (as the transfer rule left it). */
  public SignedZones sign(SluiceConfig config, ZoneIndex index, Map<Name, Plan> plans) {
    return sign(config, index, plans, SignedZones.NONE);
  }

  /**
   * As {@link #sign(SluiceConfig, ZoneIndex, Map)}, keeping the signatures of {@code running} (the
   * zones served now) for RRsets that did not change.
   */
  public SignedZones sign(
      SluiceConfig config, ZoneIndex index, Map<Name, Plan> plans, SignedZones running) {
    if (plans.isEmpty()) {
      return SignedZones.NONE;
    }
    List<SignedZone> signed = new ArrayList<>();
    Map<String, Long> ttls = new HashMap<>();
    for (Zone z : index.zones()) {
      Plan p = plans.get(z.origin());
      if (p == null) {
        continue;
      }
      SignedZone previous = null;
      for (SignedZone r : running.zones()) {
        previous = r.zone().origin().equals(z.origin()) ? r : previous;
      }
      signed.add(
          SignedZone.sign(z, new RrsetSigner(p.keys(), p.policy(), ticker), ticker, previous));
    }
    for (ZoneConfig zc : config.zones()) {
      if (zc.signed()) {
        for (ServiceConfig s : zc.services()) {
          ttls.put(s.fqdn(zc.origin()).toLowerCase(Locale.ROOT), s.ttl());
        }
      }
    }
    return new SignedZones(signed, ttls);
  }
}
