package io.sluice.dns.dnssec.keys;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.config.DnssecConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.core.spi.KeyFileExchange;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigCompiler;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

/**
 * The keys of every signed zone, read from each zone's key directory of BIND key files. Loading
 * happens at start, on reload and after a rollover step, never on the query path; readers get the
 * zone's keys from one immutable map swapped in whole. One bad file is reported (file and field)
 * and skipped, never failing the other keys or zones; a file that was good before keeps its last
 * good key, so a half-edited file never withdraws a key in use.
 */
public final class KeyDirectory implements ZoneKeySource {
  private static final Logger log = LoggerFactory.getLogger(KeyDirectory.class);

  /** Where a cluster node moves key files the cluster does not have. */
  static final String NOT_IN_CLUSTER = "not-in-cluster";

  private static final java.util.regex.Pattern SHARED_FILE =
      java.util.regex.Pattern.compile("K(.+)\\+(\\d{3})\\+(\\d{5})\\.(key|private)");

  /** One signed zone's key settings, from its configuration. */
  public record ZoneSetup(
      Name zone,
      Path directory,
      DnssecAlgorithm algorithm,
      boolean generate,
      KeyRollover.Waits waits) {

    /** The DNSKEY TTL of the zone's keys. */
    public Duration dnskeyTtl() {
      return waits.dnskeyTtl();
    }

    /** The setup of every signed zone of {@code config}, keyed by zone. */
    public static Map<Name, ZoneSetup> of(SluiceConfig config) {
      Map<Name, ZoneSetup> out = new LinkedHashMap<>();
      for (ZoneConfig z : config.zones()) {
        if (z.signed()) {
          DnssecConfig d = z.dnssec();
          Name zone = name(z.origin());
          out.put(
              zone,
              new ZoneSetup(
                  zone,
                  d.keyDirectory(config.stateDirectory(), z.origin()),
                  d.algorithm(),
                  d.generate(),
                  KeyRollover.Waits.of(z)));
        }
      }
      return out;
    }
  }

  /** What a load found wrong (each naming file and field) and which keys it generated. */
  public record LoadReport(List<KeyFileException> problems, List<String> generated) {
    public LoadReport {
      problems = List.copyOf(problems);
      generated = List.copyOf(generated);
    }
  }

  /** One zone as loaded: its setup, its keys, each key by its file's base name, its problems. */
  private record Loaded(
      ZoneSetup setup, ZoneKeys keys, Map<String, SigningKey> byFile, List<String> problems) {}

  private final Ticker ticker;
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  // Swapped whole: readers on any thread see one consistent set of zones.
  private volatile Map<Name, Loaded> zones = Map.of();
  // The last moment tick() looked at; guarded by this.
  private Instant lastTick;
  // The zones of the last configuration loaded, for listings.
  private volatile List<Name> listed = List.of();
  // Mirrors the cluster's changes into the key directories, one at a time, in etcd's order.
  private final ExecutorService mirrors =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "sluice-dnssec-mirror");
            t.setDaemon(true);
            return t;
          });
  // Where a cluster node shares its key files; null on a single node.
  private volatile KeyFileExchange exchange;

  public KeyDirectory(Ticker ticker) {
    this.ticker = ticker;
    this.lastTick = now();
  }

  @Override
  public Optional<ZoneKeys> keys(Name zone) {
    Loaded l = zones.get(zone);
    return l == null ? Optional.empty() : Optional.of(l.keys());
  }

  /** The setup of {@code zone}, or empty when it is not signed. */
  public Optional<ZoneSetup> setup(Name zone) {
    Loaded l = zones.get(zone);
    return l == null ? Optional.empty() : Optional.of(l.setup());
  }

  /** What the last load of {@code zone} found wrong, one line per problem. */
  public List<String> problems(Name zone) {
    Loaded l = zones.get(zone);
    return l == null ? List.of() : l.problems();
  }

  /** The zones signed by the last configuration loaded, in configuration order. */
  public List<Name> zones() {
    return listed;
  }

  /**
   * Shares the key files with the other nodes of a cluster through {@code exchange}: from the next
   * load on, a zone's files are the cluster's (mirrored into its key directory; the files of this
   * node that the cluster does not have are moved aside into {@code not-in-cluster/}), the first
   * node to load a zone shares its own (generated if the zone asks for it), and a change another
   * node makes (a rollover step) is mirrored and loaded here. Call before the first load.
   */
  public void share(KeyFileExchange exchange) {
    this.exchange = exchange;
    exchange.watch(this::mirrored);
  }

  /** The exchange this node shares keys through, or null on a single node. */
  public KeyFileExchange exchange() {
    return exchange;
  }

  private void mirrored(String zoneText, Map<String, String> files) {
    Name zone;
    try {
      zone = Name.fromString(zoneText, Name.root);
    } catch (TextParseException e) {
      return;
    }
    // Never on etcd's callback thread: loading waits for etcd answers that this thread delivers.
    mirrors.execute(
        () -> {
          Loaded l = zones.get(zone);
          if (l == null) {
            return;
          }
          try {
            synchronized (this) {
              mirror(l.setup(), files);
            }
            reload(zone, false);
          } catch (IOException | RuntimeException e) {
            log.warn("cannot mirror the cluster's keys of {}: {}", zone, e.toString());
          }
        });
  }

  @Override
  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  /** The time the key timing is judged at. */
  public Instant now() {
    return Instant.ofEpochMilli(ticker.currentTimeMillis());
  }

  /**
   * Loads the keys of every signed zone of {@code config}, generating a combined signing key for a
   * zone whose setup asks for it and whose directory holds no key; zones no longer signed are
   * dropped. Listeners hear of every zone whose keys changed.
   */
  public LoadReport load(SluiceConfig config) {
    return load(ZoneSetup.of(config).values());
  }

  /**
   * The step of building a configuration that loads its zones' keys (and generates the keys of new
   * zones that ask for it), before the zones are compiled and signed. One bad key file never
   * rejects the configuration: it is reported in the log and in {@code sluice ctl keys}.
   */
  public ConfigCompiler compiler() {
    return (config, source, running, out) -> load(config);
  }

  /** Like {@link #load(SluiceConfig)}, for the given setups. */
  public LoadReport load(Iterable<ZoneSetup> setups) {
    List<KeyFileException> problems = new ArrayList<>();
    List<String> generated = new ArrayList<>();
    List<Name> changed;
    synchronized (this) {
      Map<Name, Loaded> before = zones;
      Map<Name, Loaded> next = new LinkedHashMap<>();
      for (ZoneSetup s : setups) {
        next.put(s.zone(), loadZone(s, before.get(s.zone()), problems, generated, true));
      }
      listed = List.copyOf(next.keySet());
      // A zone no longer signed keeps its keys: the build that dropped it may still be rejected
      // by a later step, and the configuration served until then still signs it.
      before.forEach(next::putIfAbsent);
      changed = publish(before, next);
    }
    // Outside the lock: a listener may start a build, which loads keys on another thread.
    changed.forEach(this::tell);
    return new LoadReport(problems, generated);
  }

  /** Reloads the key files of one signed zone (after a rollover step rewrote them). */
  public LoadReport reload(Name zone) {
    return reload(zone, true);
  }

  // Without sync, the files as they are (a mirror of the cluster's just written).
  private LoadReport reload(Name zone, boolean sync) {
    List<KeyFileException> problems = new ArrayList<>();
    List<String> generated = new ArrayList<>();
    List<Name> changed;
    synchronized (this) {
      Map<Name, Loaded> before = zones;
      Loaded old = before.get(zone);
      if (old == null) {
        throw new IllegalArgumentException(zone + " is not a signed zone");
      }
      Map<Name, Loaded> next = new LinkedHashMap<>(before);
      next.put(zone, loadZone(old.setup(), old, problems, generated, sync));
      changed = publish(before, next);
    }
    changed.forEach(this::tell);
    return new LoadReport(problems, generated);
  }

  /**
   * Tells the listeners of every zone one of whose key timing instants passed since the last tick
   * (a key became published, active, inactive or withdrawn). The runtime calls it every second.
   */
  public void tick() {
    List<Name> due = new ArrayList<>();
    synchronized (this) {
      Instant now = now();
      Instant since = lastTick;
      if (!now.isAfter(since)) {
        return;
      }
      lastTick = now;
      for (Loaded l : zones.values()) {
        boolean changed =
            l.keys().keys().stream()
                .flatMap(k -> k.timing().instants().stream())
                .anyMatch(t -> t.isAfter(since) && !t.isAfter(now));
        if (changed) {
          due.add(l.setup().zone());
        }
      }
    }
    due.forEach(this::tell);
  }

  /** Swaps {@code next} in; returns the zones whose keys changed. */
  private List<Name> publish(Map<Name, Loaded> before, Map<Name, Loaded> next) {
    // Configuration order, for listings.
    zones = Collections.unmodifiableMap(new LinkedHashMap<>(next));
    List<Name> changed = new ArrayList<>();
    for (Map.Entry<Name, Loaded> e : next.entrySet()) {
      Loaded old = before.get(e.getKey());
      if (old == null || !old.keys().equals(e.getValue().keys())) {
        changed.add(e.getKey());
      }
    }
    return changed;
  }

  private void tell(Name zone) {
    for (Listener l : listeners) {
      try {
        l.keysChanged(zone);
      } catch (RuntimeException e) {
        log.warn("key change listener failed for {}", zone, e);
      }
    }
  }

  private Loaded loadZone(
      ZoneSetup s,
      Loaded old,
      List<KeyFileException> allProblems,
      List<String> generated,
      boolean sync) {
    List<KeyFileException> problems = new ArrayList<>();
    String dir = s.directory().toString();
    List<Path> files;
    KeyFileExchange shared = sync ? exchange : null;
    try {
      if (shared != null) {
        syncWithCluster(shared, s, problems, generated);
      }
      files = keyFiles(s);
      // A cluster node generates only as the first node to share the zone's keys.
      if (files.isEmpty() && s.generate() && exchange == null) {
        generate(s, generated);
        files = keyFiles(s);
      }
    } catch (IOException e) {
      problems.add(new KeyFileException(dir, null, "cannot read the key directory: " + e));
      files = List.of();
    }
    Map<String, SigningKey> byFile = new TreeMap<>();
    for (Path f : files) {
      String file = f.getFileName().toString();
      String base = file.substring(0, file.length() - ".key".length());
      try {
        SigningKey k = KeyFiles.read(f);
        if (!k.dnskey().getName().equals(s.zone())) {
          throw new KeyFileException(
              f.toString(),
              "DNSKEY owner",
              "must be the zone " + s.zone() + ", was " + k.dnskey().getName());
        }
        byFile.put(base, k);
      } catch (KeyFileException e) {
        SigningKey before = old == null ? null : old.byFile().get(base);
        if (before != null) {
          // A file that held a good key keeps serving it: a half-written edit never removes a key.
          byFile.put(base, before);
          problems.add(
              new KeyFileException(
                  e.file(), e.field(), e.getMessage() + " (keeping the key as loaded before)"));
        } else {
          problems.add(e);
        }
      }
    }
    if (byFile.isEmpty()) {
      problems.add(
          new KeyFileException(
              dir,
              null,
              "no usable key for "
                  + s.zone()
                  + (s.generate()
                      ? ""
                      : " (generate one with 'sluice keys generate "
                          + s.zone()
                          + " --directory "
                          + dir
                          + "', or set dnssec.generate: true)")));
    }
    for (KeyFileException p : problems) {
      log.warn("DNSSEC key: {}", p.getMessage());
    }
    allProblems.addAll(problems);
    return new Loaded(
        s,
        new ZoneKeys(s.zone(), List.copyOf(byFile.values())),
        byFile,
        problems.stream().map(KeyFileException::getMessage).toList());
  }

  private void generate(ZoneSetup s, List<String> generated) throws IOException {
    SigningKey key =
        KeyGenerator.generate(
            s.zone(), s.algorithm(), KeyRole.CSK, s.dnskeyTtl(), KeyTiming.startingAt(now()));
    KeyFiles.write(s.directory(), key);
    String base = KeyFiles.baseName(key);
    generated.add(s.directory().resolve(base).toString());
    log.info("generated DNSSEC key {} in {}", base, s.directory());
  }

  // The cluster's files of the zone become this node's; the first node shares its own. Without
  // etcd the node keeps its local files (and generates none: that key would be this node's only).
  private void syncWithCluster(
      KeyFileExchange ex, ZoneSetup s, List<KeyFileException> problems, List<String> generated)
      throws IOException {
    String zone = s.zone().toString().toLowerCase(Locale.ROOT);
    try {
      Optional<Map<String, String>> cluster = ex.read(zone);
      if (cluster.isEmpty()) {
        if (keyFiles(s).isEmpty() && s.generate()) {
          generate(s, generated);
        }
        Map<String, String> mine = texts(s);
        if (mine.isEmpty()) {
          return;
        }
        Map<String, String> won = ex.publishIfAbsent(zone, mine);
        if (won.equals(mine)) {
          log.info("DNSSEC keys of {} shared with the cluster (first node)", s.zone());
          return;
        }
        cluster = Optional.of(won);
      }
      mirror(s, cluster.get());
    } catch (IOException e) {
      problems.add(
          new KeyFileException(
              s.directory().toString(),
              null,
              "cannot share the keys through etcd, using the local files: " + e.getMessage()));
    }
  }

  /** The texts of the zone's key files in its directory, by file name. */
  private static Map<String, String> texts(ZoneSetup s) throws IOException {
    Map<String, String> out = new TreeMap<>();
    for (Path key : keyFiles(s)) {
      String name = key.getFileName().toString();
      Path priv = key.resolveSibling(name.substring(0, name.length() - 4) + ".private");
      if (Files.exists(priv)) {
        out.put(name, Files.readString(key));
        out.put(priv.getFileName().toString(), Files.readString(priv));
      }
    }
    return out;
  }

  /** Makes the zone's directory hold exactly {@code files} among its key files. */
  private static void mirror(ZoneSetup s, Map<String, String> files) throws IOException {
    Files.createDirectories(s.directory());
    String zone = s.zone().toString().toLowerCase(Locale.ROOT);
    for (Map.Entry<String, String> f : files.entrySet()) {
      String name = f.getKey();
      Matcher m = SHARED_FILE.matcher(name);
      // Only names of this zone's key files: a value never writes anywhere else.
      if (!m.matches()
          || !m.group(1).toLowerCase(Locale.ROOT).equals(zone)
          || name.contains("/")
          || name.contains("\\")) {
        continue;
      }
      Path p = s.directory().resolve(name);
      if (Files.exists(p) && Files.readString(p).equals(f.getValue())) {
        continue;
      }
      if (name.endsWith(".private")) {
        TokenFile.writePrivate(p, f.getValue());
      } else {
        Path tmp = Files.createTempFile(s.directory(), name, ".tmp");
        try {
          Files.writeString(tmp, f.getValue());
          Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE);
        } finally {
          Files.deleteIfExists(tmp);
        }
      }
    }
    for (Path key : keyFiles(s)) {
      String name = key.getFileName().toString();
      if (!files.containsKey(name)) {
        Path aside = s.directory().resolve(NOT_IN_CLUSTER);
        Files.createDirectories(aside);
        String base = name.substring(0, name.length() - 4);
        for (String ext : List.of(".key", ".private")) {
          Path from = s.directory().resolve(base + ext);
          if (Files.exists(from)) {
            Files.move(from, aside.resolve(base + ext), StandardCopyOption.REPLACE_EXISTING);
          }
        }
        log.warn("DNSSEC key {} of {} is not the cluster's: moved to {}", base, s.zone(), aside);
      }
    }
  }

  /** The {@code .key} files of the zone in its directory (none when the directory is missing). */
  static List<Path> keyFiles(ZoneSetup s) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(s.directory())) {
      return out;
    }
    String zone = s.zone().toString().toLowerCase(Locale.ROOT);
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(s.directory(), "K*.key")) {
      for (Path p : ds) {
        Matcher m = KeyFiles.KEY_FILE.matcher(p.getFileName().toString());
        // A directory may hold other zones' keys: only this zone's are read.
        if (m.matches() && m.group(1).toLowerCase(Locale.ROOT).equals(zone)) {
          out.add(p);
        }
      }
    }
    out.sort(null);
    return out;
  }

  private static Name name(String origin) {
    try {
      return Name.fromString(origin, Name.root);
    } catch (TextParseException e) {
      throw new IllegalArgumentException("not a domain name: " + origin, e);
    }
  }
}
