package io.sluice.dns.dnssec.keys;

import java.util.Optional;
import org.xbill.DNS.Name;

/** Where the signer gets each zone's keys; implementations load them off the query path. */
public interface ZoneKeySource {

  /** The keys of {@code zone}, or empty when the zone is not signed. */
  Optional<ZoneKeys> keys(Name zone);
}
