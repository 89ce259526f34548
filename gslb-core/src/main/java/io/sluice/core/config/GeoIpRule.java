package io.sluice.core.config;

/**
 * Maps a GeoIP location to a region: exactly one of subdivision (ISO 3166-2, {@code US-CA}),
 * country (ISO 3166-1 alpha-2) or continent code; the most specific matching rule wins.
 */
public record GeoIpRule(String subdivision, String country, String continent, String region) {

  void validate(String path, SluiceConfig root, Problems p) {
    int set =
        (subdivision != null ? 1 : 0) + (country != null ? 1 : 0) + (continent != null ? 1 : 0);
    if (set != 1) {
      p.add(path, "exactly one of 'subdivision', 'country' or 'continent' is required");
    }
    if (p.required(Problems.child(path, "region"), region) && !root.regions().containsKey(region)) {
      p.add(Problems.child(path, "region"), "unknown region '" + region + "'");
    }
  }
}
