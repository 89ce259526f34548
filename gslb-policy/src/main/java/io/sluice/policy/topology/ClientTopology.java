package io.sluice.policy.topology;

import io.sluice.core.config.Cidr;
import io.sluice.core.config.NetworkMapEntry;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TopologyConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Maps a client address to its region: explicit network maps first (longest prefix wins, and a map
 * always beats the database), then the GeoIP database, then the default region. Built once per
 * configuration; lookups are a walk down a {@link PrefixTrie} and never allocate.
 *
 * <p>A lookup result packs three numbers into a long: the region index ({@link #region}), its
 * {@link RegionSource} ({@link #source}) and the prefix length over which it holds ({@link
 * #depth}). Region index {@link #none()} means "no region".
 */
public final class ClientTopology {
  private final PrefixTrie v4;
  private final PrefixTrie v6;
  private final int regions;
  private final int geoIpNetworks;
  private final Map<Integer, List<Cidr>> geoIpSamples;

  private ClientTopology(
      PrefixTrie v4,
      PrefixTrie v6,
      int regions,
      int geoIpNetworks,
      Map<Integer, List<Cidr>> geoIpSamples) {
    this.v4 = v4;
    this.v6 = v6;
    this.regions = regions;
    this.geoIpNetworks = geoIpNetworks;
    this.geoIpSamples = Map.copyOf(geoIpSamples);
  }

  /**
   * Builds the topology of {@code config}; {@code regionIndex} gives each region its index. Reads
   * the GeoIP database when one is configured.
   */
  public static ClientTopology build(SluiceConfig config, Map<String, Integer> regionIndex)
      throws IOException {
    TopologyConfig t = config.topology();
    int n = regionIndex.size();
    PrefixTrieBuilder b4 = new PrefixTrieBuilder(32);
    PrefixTrieBuilder b6 = new PrefixTrieBuilder(128);
    int imported = 0;
    Map<Integer, List<Cidr>> samples = Map.of();
    if (t.geoip() != null) {
      GeoIpImporter importer = new GeoIpImporter(t.geoip(), regionIndex);
      imported =
          importer.importInto(
              config.resolve(t.geoip().database()), b4, b6, RegionSource.GEOIP.ordinal());
      samples = importer.samples();
    }
    List<NetworkMapEntry> maps = new ArrayList<>(t.networks());
    // Shorter networks first, so a longer explicit network lands inside a shorter one.
    maps.sort(Comparator.comparingInt(e -> Cidr.parse(e.cidr()).prefix()));
    for (NetworkMapEntry e : maps) {
      Cidr c = Cidr.parse(e.cidr());
      int value = encode(regionIndex.get(e.region()), RegionSource.NETWORK_MAP.ordinal());
      (c.address().length == 4 ? b4 : b6).override(c.address(), c.prefix(), value);
    }
    int fallback =
        t.defaultRegion() == null
            ? encode(n, RegionSource.NONE.ordinal())
            : encode(regionIndex.get(t.defaultRegion()), RegionSource.DEFAULT.ordinal());
    return new ClientTopology(
        b4.build(fallback, v -> v >>> 2, n + 1),
        b6.build(fallback, v -> v >>> 2, n + 1),
        n,
        imported,
        samples);
  }

  /**
   * A few networks (at most 8) the GeoIP database maps to each region, by region index, chosen
   * deterministically over the whole database; empty without a database. The divergence check asks
   * as clients inside them, so that regions known only to the database are covered too.
   */
  public Map<Integer, List<Cidr>> geoIpSamples() {
    return geoIpSamples;
  }

  static int encode(int region, int source) {
    return region << 2 | source;
  }

  /** Looks up {@code address} (4 or 16 bytes); decode with {@link #region}, {@link #source}. */
  public long locate(byte[] address) {
    return (address.length == 4 ? v4 : v6).find(address);
  }

  /** The region index of a {@link #locate} result. */
  public static int region(long located) {
    return (int) located >>> 2;
  }

  /** The source of a {@link #locate} result. */
  public static RegionSource source(long located) {
    return RegionSource.values()[(int) located & 3];
  }

  /** The prefix length over which a {@link #locate} result holds. */
  public static int depth(long located) {
    return (int) (located >>> 32);
  }

  /**
   * The widest prefix of {@code address} whose clients all map to regions in {@code regionClass}
   * (bit {@code r} for region index {@code r}, bit {@link #none()} for "no region").
   */
  public int scope(byte[] address, long regionClass) {
    return (address.length == 4 ? v4 : v6).scope(address, regionClass);
  }

  /** The region index meaning "no region". */
  public int none() {
    return regions;
  }

  /** How many networks the GeoIP database contributed. */
  public int geoIpNetworks() {
    return geoIpNetworks;
  }

  /** Trie sizes (IPv4, IPv6) in nodes. */
  public int[] sizes() {
    return new int[] {v4.size(), v6.size()};
  }
}
