package io.sluice.dns.transfer;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.HostPort;
import io.sluice.core.config.Problems;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TransferConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.state.Snapshot;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneIndex;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * Every zone offered for transfer in one configuration, built with the zones and published in the
 * same snapshot. Building it applies the serial rule: a zone whose content changed since the last
 * published version gets the configured serial when that is newer, else the last serial plus one
 * (RFC 1982 arithmetic); unchanged content keeps its serial. Serials and content fingerprints are
 * kept in the state directory ({@link SerialFile}), so a restart never moves a serial backwards.
 * The difference to the previous version is kept (a bounded history) so a secondary following a
 * reload gets an incremental transfer.
 */
public final class TransferZones {
  /** No zone offered. */
  public static final TransferZones EMPTY = new TransferZones(Map.of(), Map.of());

  /** Differences kept per zone, and records across them: older ones are dropped first. */
  static final int MAX_DIFFS = 32;

  static final int MAX_HISTORY_RECORDS = 200_000;

  private final Map<Name, TransferZone> zones;
  private final Map<Name, TsigKey> keys;

  private TransferZones(Map<Name, TransferZone> zones, Map<Name, TsigKey> keys) {
    this.zones = Map.copyOf(zones);
    this.keys = Map.copyOf(keys);
  }

  /** The zones as served (serials of the transfer rule applied) and what transfers offer. */
  public record Compiled(ZoneIndex index, TransferZones transfers) {}

  /** The zone at {@code origin} offered for transfer, or null. */
  public TransferZone zone(Name origin) {
    return zones.get(origin);
  }

  /** Every zone offered. */
  public Collection<TransferZone> zones() {
    return zones.values();
  }

  /**
   * One line per zone offered, for the start-up log: who may transfer it and where its key's secret
   * is, as a ready {@code dig} command.
   */
  public List<String> describe() {
    List<String> out = new ArrayList<>();
    for (TransferZone z : zones.values()) {
      String zone = z.origin().toString();
      String bare = zone.substring(0, zone.length() - 1);
      out.add(
          z.refusal() != null
              ? z.refusal()
              : z.key() == null
                  ? "zone transfers of "
                      + zone
                      + " offered to transfer.allow (dig AXFR "
                      + bare
                      + ")"
                  : "zone transfers of "
                      + zone
                      + " need TSIG key "
                      + z.key().name()
                      + ": dig -y "
                      + z.key().algorithm().text()
                      + ":"
                      + z.key().name()
                      + ":$(cat "
                      + z.key().file()
                      + ") @SERVER "
                      + bare
                      + " AXFR");
    }
    return out;
  }

  /** The key named {@code name}, or null. */
  TsigKey key(Name name) {
    return keys.get(name);
  }

  /** Whether any TSIG key is configured. */
  boolean hasKeys() {
    return !keys.isEmpty();
  }

  /**
   * Builds the transfer view of {@code index} for {@code config} (named {@code source} in errors):
   * loads or creates the TSIG keys, applies the serial rule against {@code running} (or the state
   * directory's record at start) and returns the index with those serials.
   */
  public static Compiled compile(
      SluiceConfig config, String source, ZoneIndex index, Snapshot running)
      throws ConfigException {
    TransferZones previous = running == null ? null : running.artifacts().get(TransferZones.class);
    Problems problems = new Problems(source);
    Map<Name, TsigKey> keys = new HashMap<>();
    Map<Name, TransferZone> out = new LinkedHashMap<>();
    List<Zone> served = new ArrayList<>(index.zones());
    SerialFile serials = null;
    for (int i = 0; i < config.zones().size(); i++) {
      ZoneConfig zc = config.zones().get(i);
      TransferConfig tc = zc.transfer();
      if (tc == null) {
        continue;
      }
      String path = Problems.child(Problems.index("zones", i), "transfer");
      TsigKey key = null;
      if (tc.tsig() != null) {
        try {
          key =
              TsigKey.load(
                  tc.tsig(), config.stateDirectory(), source, Problems.child(path, "tsig"));
          TsigKey other = keys.putIfAbsent(key.name(), key);
          if (other != null && !sameKey(other, key)) {
            problems.add(
                Problems.child(Problems.child(path, "tsig"), "name"),
                "key " + key.name() + " is declared again with another algorithm or secret file");
          }
        } catch (ConfigException e) {
          e.problems().forEach(p -> problems.add(p.path(), p.message()));
        }
      }
      if (serials == null) {
        serials = SerialFile.read(config.stateDirectory());
      }
      int at = indexOf(served, zc.origin());
      Zone zone = served.get(at);
      Map<Name, List<Record>> fallbacks = new HashMap<>();
      String refusal = fallbacks(zc, fallbacks);
      TransferZone draft = TransferZone.content(zone, fallbacks);
      ZoneDigest digest = ZoneDigest.of(draft);
      TransferZone before = previous == null ? null : previous.zone(zone.origin());
      long configured = draft.serial();
      long serial;
      if (before != null) {
        serial = next(configured, before.serial(), digest.equals(before.digest()));
      } else {
        SerialFile.Entry kept = serials.get(zone.origin());
        serial =
            kept == null
                ? configured
                : next(configured, kept.serial(), digest.equals(kept.digest()));
      }
      Zone renumbered = zone.withSerial(serial);
      served.set(at, renumbered);
      TransferZone now = TransferZone.content(renumbered, fallbacks);
      List<ZoneDiff> history = before == null ? List.of() : history(before, now);
      TransferZone.Access access = new TransferZone.Access(tc.allowedNetworks(), key, targets(tc));
      out.put(zone.origin(), TransferZone.offered(now, access, refusal, history, digest));
      serials.put(zone.origin(), serial, digest);
    }
    problems.throwIfAny();
    if (serials != null) {
      serials.writeIfChanged(config.stateDirectory(), source);
    }
    return new Compiled(out.isEmpty() ? index : ZoneIndex.of(served), new TransferZones(out, keys));
  }

  private static boolean sameKey(TsigKey a, TsigKey b) {
    return a.algorithm() == b.algorithm() && a.file().equals(b.file());
  }

  private static int indexOf(List<Zone> zones, String origin) {
    Name name = Name.fromConstantString(origin);
    for (int i = 0; i < zones.size(); i++) {
      if (zones.get(i).origin().equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException("zone " + origin + " was not compiled");
  }

  /**
   * The serial rule: the configured serial when it is newer than the last one (RFC 1982), else the
   * last one when the content is the same, else the last one plus one.
   */
  static long next(long configured, long last, boolean sameContent) {
    if (newer(configured, last)) {
      return configured;
    }
    return sameContent ? last : (last + 1) & 0xffffffffL;
  }

  /** RFC 1982 §3.2: whether serial {@code a} is greater than {@code b}. */
  static boolean newer(long a, long b) {
    long d = (a - b) & 0xffffffffL;
    return d != 0 && d < 0x80000000L;
  }

  /**
   * Fills {@code out} with each service's fallback records; returns why the zone cannot be
   * transferred (a service without a fallback), or null.
   */
  private static String fallbacks(ZoneConfig zc, Map<Name, List<Record>> out) {
    List<String> missing = new ArrayList<>();
    for (ServiceConfig s : zc.services()) {
      Name owner = Name.fromConstantString(s.fqdn(zc.origin()));
      if (s.fallback().isEmpty()) {
        missing.add(s.name());
        continue;
      }
      List<Record> records = new ArrayList<>();
      for (String a : s.fallback()) {
        InetAddress address;
        try {
          address = InetAddress.getByName(a);
        } catch (UnknownHostException e) {
          throw new IllegalStateException("validated address " + a, e);
        }
        records.add(
            address.getAddress().length == 4
                ? new ARecord(owner, DClass.IN, s.ttl(), address)
                : new AAAARecord(owner, DClass.IN, s.ttl(), address));
      }
      out.put(owner, records);
    }
    if (missing.isEmpty()) {
      return null;
    }
    return "zone "
        + zc.origin()
        + " is not transferable: GSLB service"
        + (missing.size() == 1 ? " " : "s ")
        + String.join(", ", missing)
        + (missing.size() == 1 ? " has" : " have")
        + " no fallback answer for secondaries (set services[].fallback)";
  }

  private static List<InetSocketAddress> targets(TransferConfig tc) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String n : tc.notifyTargets()) {
      HostPort hp = HostPort.parse(n, 53);
      try {
        out.add(new InetSocketAddress(InetAddress.getByAddress(hp.address()), hp.port()));
      } catch (UnknownHostException e) {
        throw new IllegalStateException("validated address " + n, e);
      }
    }
    return out;
  }

  /** {@code before}'s history and the change from it to {@code now}, bounded. */
  private static List<ZoneDiff> history(TransferZone before, TransferZone now) {
    if (before.serial() == now.serial()) {
      return before.history();
    }
    List<Record> deleted = new ArrayList<>();
    List<Record> added = new ArrayList<>();
    for (Name n : now.names()) {
      compare(before.rrsetsAt(n), now.rrsetsAt(n), deleted, added);
    }
    for (Name n : before.names()) {
      if (!now.names().contains(n)) {
        compare(before.rrsetsAt(n), List.of(), deleted, added);
      }
    }
    List<ZoneDiff> out = new ArrayList<>(before.history());
    out.add(new ZoneDiff(before.soa(), deleted, now.soa(), added));
    int total = 0;
    for (ZoneDiff d : out) {
      total += d.size();
    }
    while (!out.isEmpty() && (out.size() > MAX_DIFFS || total > MAX_HISTORY_RECORDS)) {
      total -= out.remove(0).size();
    }
    return out;
  }

  /** Adds RRsets that differ (data or TTL) whole: the old one deleted, the new one added. */
  private static void compare(
      List<List<Record>> old, List<List<Record>> now, List<Record> deleted, List<Record> added) {
    Map<Integer, List<Record>> byType = new HashMap<>();
    for (List<Record> s : old) {
      if (s.get(0).getType() != org.xbill.DNS.Type.SOA) {
        byType.put(s.get(0).getType(), s);
      }
    }
    for (List<Record> s : now) {
      int type = s.get(0).getType();
      if (type == org.xbill.DNS.Type.SOA) {
        continue;
      }
      List<Record> was = byType.remove(type);
      if (was != null
          && was.get(0).getTTL() == s.get(0).getTTL()
          && was.size() == s.size()
          && was.containsAll(s)) {
        continue;
      }
      if (was != null) {
        deleted.addAll(was);
      }
      added.addAll(s);
    }
    for (List<Record> s : byType.values()) {
      deleted.addAll(s);
    }
  }
}
