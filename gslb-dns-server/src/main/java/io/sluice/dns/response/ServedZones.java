package io.sluice.dns.response;

import io.sluice.core.state.ConfigCompiler;
import io.sluice.dns.transfer.TransferZones;
import io.sluice.dns.zone.ZoneCompiler;
import io.sluice.dns.zone.ZoneIndex;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything the responder reads for one configuration: the zone index, its static answers (encoded
 * per name on first use), the responder settings and the answer caches that belong to this data.
 * Built off the query path by {@link #compiler()} and published inside the snapshot together with
 * the configuration it came from, so zone data and services always change in the same swap.
 */
public final class ServedZones {
  private static final int CACHE_SLOTS = 4096;

  final ZoneIndex index;
  final StaticAnswers answers;
  final ResponderSettings settings;
  // Caches live and die with the data they were filled from: a reload starts them empty.
  final ResponseCache zoneCache = new ResponseCache(CACHE_SLOTS);
  final ResponseCache decisionCache = new ResponseCache(CACHE_SLOTS);

  /** One identity per capped negative TTL, as the cache owner of capped NODATA templates. */
  final ConcurrentHashMap<Long, Object> ttlOwners = new ConcurrentHashMap<>();

  /**
   * The Extended DNS Error options of a service's SERVFAILs, by service name (configured names
   * only, so bounded): encoded on first use instead of per query.
   */
  final ConcurrentHashMap<String, byte[]> noPoolEde = new ConcurrentHashMap<>();

  final ConcurrentHashMap<String, byte[]> unknownServiceEde = new ConcurrentHashMap<>();

  private ServedZones(ZoneIndex index, StaticAnswers answers, ResponderSettings settings) {
    this.index = index;
    this.answers = answers;
    this.settings = settings;
  }

  /**
   * The responder's view of {@code index}; static answers are encoded per name on its first
   * question, so this is cheap even for big zones.
   */
  public static ServedZones build(ZoneIndex index, ResponderSettings settings) {
    return new ServedZones(index, StaticAnswers.build(index), settings);
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
    return (config, source, running, out) -> {
      // Zone transfers renumber the serials of the zones they offer (their serial rule), so the
      // SOA of every answer agrees with what secondaries transfer.
      TransferZones.Compiled t =
          TransferZones.compile(config, source, ZoneCompiler.compile(config, source), running);
      out.put(TransferZones.class, t.transfers());
      out.put(
          ServedZones.class, build(t.index(), ResponderSettings.of(config, source, sharedCookies)));
    };
  }

  /** The zone data. */
  public ZoneIndex index() {
    return index;
  }
}
