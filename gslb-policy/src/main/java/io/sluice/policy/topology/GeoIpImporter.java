package io.sluice.policy.topology;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import com.maxmind.geoip2.DatabaseReader;
import com.maxmind.geoip2.exception.GeoIp2Exception;
import com.maxmind.geoip2.model.AbstractCountryResponse;
import com.maxmind.geoip2.model.CityResponse;
import com.maxmind.geoip2.record.Subdivision;
import io.sluice.core.config.GeoIpConfig;
import io.sluice.core.config.GeoIpRule;
import java.io.File;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

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
        imported++;
      }
    } catch (GeoIp2Exception | com.maxmind.db.InvalidNetworkException e) {
      throw new IOException(e.getMessage(), e);
    }
    return imported;
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
