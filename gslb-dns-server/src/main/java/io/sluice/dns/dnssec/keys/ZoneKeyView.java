package io.sluice.dns.dnssec.keys;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.dnssec.DnssecKeyManager.KeyView;
import io.sluice.core.dnssec.DnssecKeyManager.ZoneKeysView;
import io.sluice.core.dnssec.KeyState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSKEYRecord;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.DSRecord;

/** The admin API's view of a zone's keys: states at one moment, DS records for the parent. */
public final class ZoneKeyView {
  private ZoneKeyView() {}

  /** The DS record (SHA-256, RFC 4509) of {@code dnskey}, in presentation format. */
  public static String ds(DNSKEYRecord dnskey) {
    DSRecord ds =
        new DSRecord(dnskey.getName(), DClass.IN, dnskey.getTTL(), DNSSEC.Digest.SHA256, dnskey);
    return ds.getName() + " " + ds.getTTL() + " IN DS " + ds.rdataToString();
  }

  /** The view of {@code keys} at {@code now}; files are named under {@code directory}. */
  public static ZoneKeysView of(
      ZoneKeys keys, Path directory, KeyRollover.Waits waits, Instant now, List<String> problems) {
    List<KeyView> views = new ArrayList<>();
    List<String> ds = new ArrayList<>();
    for (SigningKey k : keys.keys()) {
      KeyTiming t = k.timing();
      KeyState state = t.state(now);
      String d = k.secureEntryPoint() ? ds(k.dnskey()) : null;
      // The DS set the parent should hold: SEP keys that are published or about to be.
      if (d != null
          && state != KeyState.REMOVED
          && !t.syncDelete().map(x -> !now.isBefore(x)).orElse(false)) {
        ds.add(d);
      }
      DnssecAlgorithm alg = DnssecAlgorithm.ofNumber(k.algorithm());
      views.add(
          new KeyView(
              k.tag(),
              k.algorithm(),
              alg == null ? DNSSEC.Algorithm.string(k.algorithm()) : alg.name(),
              keys.role(k),
              state,
              at(t.created()),
              at(t.publish()),
              at(t.activate()),
              at(t.inactive()),
              at(t.delete()),
              at(t.syncPublish()),
              at(t.syncDelete()),
              t.syncPublished(now),
              d,
              directory.resolve(KeyFiles.baseName(k) + ".key").toString()));
    }
    return new ZoneKeysView(
        keys.zone().toString(), views, ds, KeyRollover.next(keys, waits, now), problems);
  }

  private static Instant at(Optional<Instant> t) {
    return t.orElse(null);
  }
}
