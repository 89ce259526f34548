package io.sluice.policy.topology;

/** Where a client's region came from, for explain output. */
public enum RegionSource {
  /** An operator's explicit network map ({@code topology.networks}). */
  NETWORK_MAP("network map"),
  /** The MaxMind GeoIP database and its rules ({@code topology.geoip}). */
  GEOIP("geoip"),
  /** Nothing matched: {@code topology.defaultRegion}. */
  DEFAULT("default region"),
  /** Nothing matched and no default region is configured. */
  NONE("none");

  private final String label;

  RegionSource(String label) {
    this.label = label;
  }

  /** How explain output names this source. */
  public String label() {
    return label;
  }
}
