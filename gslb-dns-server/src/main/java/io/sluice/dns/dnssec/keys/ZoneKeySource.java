package io.sluice.dns.dnssec.keys;

import java.util.Optional;
import org.xbill.DNS.Name;

/** Where the signer gets each zone's keys; implementations load them off the query path. */
public interface ZoneKeySource {

  /** The keys of {@code zone}, or empty when the zone is not signed. */
  Optional<ZoneKeys> keys(Name zone);

  /**
   * Registers {@code listener}, told (never on the query path) the name of a zone whose keys or key
   * timing changed: a reload of the key files, a rollover step, or one of the keys' timing instants
   * passing. A source whose keys never change need not call it.
   */
  default void addListener(Listener listener) {}

  /** Told of a zone whose keys changed, so the signer re-signs what the change affects. */
  @FunctionalInterface
  interface Listener {
    /** The keys of {@code zone} (as {@link #keys(Name)} now returns them) changed. */
    void keysChanged(Name zone);
  }
}
