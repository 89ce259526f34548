package io.sluice.policy.topology;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import com.maxmind.geoip2.DatabaseReader;
import com.maxmind.geoip2.exception.GeoIp2Exception;
import com.maxmind.geoip2.model.AbstractCountryResponse;
import com.maxmind.geoip2.model.CityResponse;
import com.maxmind.geoip2.record.Subdivision;
import io.sluice.core.config.Cidr;
import io.sluice.core.config.GeoIpConfig;
import io.sluice.core.config.GeoIpRule;
import java.io.File;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Copies a MaxMind GeoIP2/GeoLite2 database into prefix tries, once per configuration: every
 * network of the database is mapped to a region by the most specific matching rule (subdivision,
 * then country, then continent) and networks no rule matches are left out. The database is read
 * into memory and closed again, so the query path never touches it.
 */
final class GeoIpImporter {
  private final Map<String, Integer> bySubdivision = new HashMap<>();
  private final Map<String, Integer> byCountry = new HashMap<>();
  private final Map<String, Integer> byContinent = new HashMap<>();
  // Per region index, the SAMPLES networks with the smallest hash: a deterministic choice spread
  // over the whole database, not its first networks in address order.
  private final Map<Integer, TreeMap<Long, Cidr>> samples = new HashMap<>();
  static final int SAMPLES = 8;

  GeoIpImporter(GeoIpConfig config, Map<String, Integer> regionIndex) {
    for (GeoIpRule r : config.rules()) {
      Integer region = regionIndex.get(r.region());
      if (r.subdivision() != null) {
        bySubdivision.put(r.subdivision().toUpperCase(java.util.Locale.ROOT), region);
      } else if (r.country() != null) {
        byCountry.put(r.country().toUpperCase(java.util.Locale.ROOT), region);
      } else if (r.continent() != null) {
        byContinent.put(r.continent().toUpperCase(java.util.Locale.ROOT), region);
      }
    }
  }

  /** Number of networks imported; throws IOException when the database cannot be read. */
  int importInto(Path database, PrefixTrieBuilder v4, PrefixTrieBuilder v6, int source)
      throws IOException {
    File file = database.toFile();
    int imported = 0;
    try (Reader raw = new Reader(file, Reader.FileMode.MEMORY);
        DatabaseReader typed =
            new DatabaseReader.Builder(file).fileMode(Reader.FileMode.MEMORY).build()) {
      boolean city = typed.getMetadata().getDatabaseType().contains("City");
      Networks<NetworkOnly> networks = raw.networks(false, NetworkOnly.class);
      while (networks.hasNext()) {
        DatabaseRecord<NetworkOnly> rec = networks.next();
        InetAddress network = rec.getNetwork().getNetworkAddress();
        int prefix = rec.getNetwork().getPrefixLength();
        Integer region = region(typed, city, network);
        if (region == null) {
          continue;
        }
        PrefixTrieBuilder target = network instanceof Inet4Address ? v4 : v6;
        target.put(network.getAddress(), prefix, ClientTopology.encode(region, source));
        sample(region, network.getAddress(), prefix);
        imported++;
      }
    } catch (GeoIp2Exception | com.maxmind.db.InvalidNetworkException e) {
      throw new IOException(e.getMessage(), e);
    }
    return imported;
  }

  private void sample(int region, byte[] address, int prefix) {
    TreeMap<Long, Cidr> kept = samples.computeIfAbsent(region, r -> new TreeMap<>());
    long h = prefix;
    for (byte b : address) {
      h = h * 1_000_003L + (b & 0xff);
    }
    h = mix(h);
    if (kept.size() < SAMPLES || h < kept.lastKey()) {
      kept.put(h, new Cidr(address.clone(), prefix));
      if (kept.size() > SAMPLES) {
        kept.pollLastEntry();
      }
    }
  }

  /** A 64-bit finaliser (SplitMix64), so that neighbouring networks get unrelated hashes. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /**
   * A few networks the database maps to each region (by region index), after {@link #importInto}.
   */
  Map<Integer, List<Cidr>> samples() {
    Map<Integer, List<Cidr>> out = new HashMap<>();
    samples.forEach((region, kept) -> out.put(region, List.copyOf(kept.values())));
    return out;
  }

  private Integer region(DatabaseReader db, boolean city, InetAddress address)
      throws IOException, GeoIp2Exception {
    Optional<? extends AbstractCountryResponse> found =
        city ? db.tryCity(address) : db.tryCountry(address);
    if (found.isEmpty()) {
      return null;
    }
    AbstractCountryResponse r = found.get();
    String country = r.getCountry().getIsoCode();
    if (country == null) {
      country = r.getRegisteredCountry().getIsoCode();
    }
    if (city && country != null && !bySubdivision.isEmpty()) {
      for (Subdivision s : ((CityResponse) r).getSubdivisions()) {
        Integer region = bySubdivision.get(country + "-" + s.getIsoCode());
        if (region != null) {
          return region;
        }
      }
    }
    if (country != null && byCountry.containsKey(country)) {
      return byCountry.get(country);
    }
    String continent = r.getContinent().getCode();
    return continent == null ? null : byContinent.get(continent);
  }

  /** Decodes nothing of a record: the typed reader does that; only the network is needed here. */
  public static final class NetworkOnly {
    @com.maxmind.db.MaxMindDbConstructor
    public NetworkOnly() {}
  }
}
