package io.sluice.dns.dnssec;

import io.sluice.dns.zone.Zone;
import java.util.List;
import java.util.Map;

/**
 * The signed zones of one configuration, built with it off the query path and published in the same
 * snapshot, and the configured TTL of each service they hold (the Original TTL of its answer
 * signatures).
 */
public final class SignedZones {
  /** No zone signed. */
  public static final SignedZones NONE = new SignedZones(List.of(), Map.of());

  private final SignedZone[] zones;
  private final Map<String, Long> serviceTtls;

  public SignedZones(List<SignedZone> zones, Map<String, Long> serviceTtls) {
    this.zones = zones.toArray(new SignedZone[0]);
    this.serviceTtls = Map.copyOf(serviceTtls);
  }

  /** Whether any zone is signed. */
  public boolean any() {
    return zones.length > 0;
  }

  /** The signed form of {@code zone} (compared by identity), or null when it is not signed. */
  public SignedZone of(Zone zone) {
    for (SignedZone z : zones) {
      if (z.zone() == zone) {
        return z;
      }
    }
    return null;
  }

  /** Every signed zone. */
  public List<SignedZone> zones() {
    return List.of(zones);
  }

  /** The configured TTL of {@code service} (absolute lower-case name), or -1 when unknown. */
  public long serviceTtl(String service) {
    Long ttl = serviceTtls.get(service);
    return ttl == null ? -1 : ttl;
  }
}
