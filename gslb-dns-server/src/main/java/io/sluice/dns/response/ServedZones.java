package io.sluice.dns.response;

import io.sluice.core.state.ConfigCompiler;
import io.sluice.dns.dnssec.SignedZones;
import io.sluice.dns.dnssec.ZoneSigning;
import io.sluice.dns.transfer.TransferZones;
import io.sluice.dns.zone.ZoneCompiler;
import io.sluice.dns.zone.ZoneIndex;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.xbill.DNS.Name;

/**
 * Everything the responder reads for one configuration: the zone index, its static answers (encoded
 * per name on first use), the responder settings and the answer caches that belong to this data.
 * Built off the query path by {@link #compiler()} and published inside the snapshot together with
 * the configuration it came from, so zone data and services always change in the same swap.
 */
public final class ServedZones {
  private static final int CACHE_SLOTS = 4096;

  /** Signed answers are not kept with the zone's nodes: a larger cache holds them instead. */
  private static final int SIGNED_CACHE_SLOTS = 1 << 16;

  final ZoneIndex index;
  final StaticAnswers answers;
  final ResponderSettings settings;
  // Caches live and die with the data they were filled from: a reload starts them empty.
  final ResponseCache zoneCache = new ResponseCache(CACHE_SLOTS);
  final ResponseCache decisionCache = new ResponseCache(CACHE_SLOTS);

  /** The signed zones among {@link #index}'s, and the caches of their answers to DO queries. */
  final SignedZones signed;

  final ResponseCache signedCache;
  final ResponseCache signedDecisionCache;

  /** One identity per capped negative TTL, as the cache owner of capped NODATA templates. */
  final ConcurrentHashMap<Long, Object> ttlOwners = new ConcurrentHashMap<>();

  /**
   * The Extended DNS Error options of a service's SERVFAILs, by service name (configured names
   * only, so bounded): encoded on first use instead of per query.
   */
  final ConcurrentHashMap<String, byte[]> noPoolEde = new ConcurrentHashMap<>();

  final ConcurrentHashMap<String, byte[]> unknownServiceEde = new ConcurrentHashMap<>();

  private ServedZones(
      ZoneIndex index, StaticAnswers answers, ResponderSettings settings, SignedZones signed) {
    this.index = index;
    this.answers = answers;
    this.settings = settings;
    this.signed = signed;
    this.signedCache = new ResponseCache(signed.any() ? SIGNED_CACHE_SLOTS : 1);
    this.signedDecisionCache = new ResponseCache(signed.any() ? CACHE_SLOTS : 1);
  }

  /**
   * The responder's view of {@code index}; static answers are encoded per name on its first
   * question, so this is cheap even for big zones.
   */
  public static ServedZones build(ZoneIndex index, ResponderSettings settings) {
    return build(index, settings, SignedZones.NONE);
  }

  /** As {@link #build(ZoneIndex, ResponderSettings)}, with the zones {@code signed} signed. */
  public static ServedZones build(ZoneIndex index, ResponderSettings settings, SignedZones signed) {
    return new ServedZones(index, StaticAnswers.build(index, signed), settings, signed);
  }

  /**
   * The DNS module's share of building a configuration: compile the zones, apply the zone transfer
   * serial rule, and encode them.
   */
  public static ConfigCompiler compiler() {
    return compiler(null);
  }

  /**
   * As {@link #compiler()} on a cluster node, whose cookie secrets are {@code sharedCookies} (see
   * {@link ResponderSettings#of(io.sluice.core.config.SluiceConfig, String, CookieKeyring)}).
   */
  public static ConfigCompiler compiler(CookieKeyring sharedCookies) {
    return compiler(sharedCookies, null);
  }

  /**
   * As {@link #compiler(CookieKeyring)}, signing the zones whose configuration asks for it with
   * {@code signing} (null: none is signed).
   */
  public static ConfigCompiler compiler(CookieKeyring sharedCookies, ZoneSigning signing) {
    return (config, source, running, out) -> {
      ServedZones served = running == null ? null : running.artifacts().get(ServedZones.class);
      // A master file whose content has not changed is not parsed again: the zones served now
      // lend its records (docs/zones.md).
      ZoneIndex zones = ZoneCompiler.compile(config, source, served == null ? null : served.index);
      Map<Name, ZoneSigning.Plan> plans =
          signing == null ? Map.of() : signing.plans(config, source);
      if (signing != null) {
        // The DNSKEY RRset is zone data: transferred, and counted by the serial rule.
        zones = signing.withKeyRecords(zones, plans);
      }
      // Zone transfers renumber the serials of the zones they offer (their serial rule), so the
      // SOA of every answer agrees with what secondaries transfer.
      TransferZones.Compiled t = TransferZones.compile(config, source, zones, running);
      out.put(TransferZones.class, t.transfers());
      SignedZones signed =
          signing == null
              ? SignedZones.NONE
              : signing.sign(
                  config, t.index(), plans, served == null ? SignedZones.NONE : served.signed);
      out.put(
          ServedZones.class,
          build(t.index(), ResponderSettings.of(config, source, sharedCookies), signed));
    };
  }

  /** The signed zones. */
  public SignedZones signed() {
    return signed;
  }

  /** The zone data. */
  public ZoneIndex index() {
    return index;
  }
}
