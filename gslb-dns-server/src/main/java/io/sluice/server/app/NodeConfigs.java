package io.sluice.server.app;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.ConfigChanges;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigFiles;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.history.BlobCache;
import io.sluice.core.config.history.ConfigSource;
import io.sluice.core.config.history.ConfigStore;
import io.sluice.core.config.history.ConfigVersion;
import io.sluice.core.config.history.FileConfigStore;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ConfigCommands;
import io.sluice.core.control.ConfigReloader;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's configuration versions: what it runs at start, and every later change (SIGHUP or
 * {@code sluice ctl reload} of its file, {@code config push}, {@code config rollback}, a version
 * another node of the cluster appended) goes through one path: read the YAML with its referenced
 * files from their content-addressed copies, check it with {@link ConfigCheck} (the check of the
 * start and {@code sluice check}), build it, record the version in the {@link ConfigStore}, then
 * publish it in one swap. The same code runs over the state directory and over etcd.
 *
 * <p>The file on disk after a push or rollback: a SIGHUP, a reload and a restart apply the file
 * only when it changed since the node last read it (then as a new version that supersedes the
 * pushed or restored one, with a warning); an unchanged file leaves the current version running.
 */
public final class NodeConfigs implements ConfigCommands, ConfigReloader {
  private static final Logger log = LoggerFactory.getLogger(NodeConfigs.class);

  private final Path file;
  private final CliOverrides overrides;
  private final ConfigStore store;
  private final FileConfigStore local;
  private final ClusterConfig cluster;
  // Whether the versions are the cluster's (etcd), rather than this node's own.
  private final boolean shared;
  private final Path baseDir;
  private final Path stateDir;
  private final LongSupplier clock;
  private SluiceNode node;
  private AuditSink audit = AuditSink.NONE;
  // The number of the version this node runs (0: none recorded).
  private volatile long applied;
  // The last version another node appended that this node could not apply.
  private long refused;

  private NodeConfigs(
      Path file,
      CliOverrides overrides,
      SluiceConfig fileConfig,
      ConfigStore store,
      FileConfigStore local,
      LongSupplier clock) {
    this.file = file;
    this.overrides = overrides;
    this.store = store;
    this.local = local;
    this.cluster = fileConfig.cluster();
    this.shared = fileConfig.clustered() && fileConfig.cluster().sharedConfig();
    this.baseDir = fileConfig.baseDir();
    this.stateDir = fileConfig.stateDirectory();
    this.clock = clock;
  }

  /**
   * The versions of a node started from {@code file} (read as {@code fileConfig}), kept in {@code
   * store}; {@code local} is the state directory's history ({@code store} itself on a single node).
   */
  static NodeConfigs create(
      Path file,
      CliOverrides overrides,
      SluiceConfig fileConfig,
      ConfigStore store,
      FileConfigStore local) {
    return new NodeConfigs(file, overrides, fileConfig, store, local, System::currentTimeMillis);
  }

  /** What the node starts with: a checked configuration and the version it is. */
  record Start(
      SluiceConfig config, String name, ConfigVersion version, boolean append, String fileDigest) {}

  /**
   * Chooses what the node starts with. A cluster runs its current version (the node's last applied
   * one while etcd is unreachable) and the file only bootstraps an empty cluster. A single node
   * runs the file, unless the file is unchanged since it was last read and a push or rollback made
   * another version current since: that one keeps running across the restart.
   */
  synchronized Start chooseStart() throws ConfigException, IOException {
    FileRead read = readFile();
    // The node itself read its file: named after the node in a cluster, where several may.
    Actor starter = new Actor(cluster == null ? "start" : cluster.node(), "system");
    ConfigVersion fromFile = draft(read, starter, ConfigSource.START, "start of " + file, null);
    Optional<ConfigVersion> current;
    boolean reachable = true;
    try {
      current = store.current();
    } catch (IOException e) {
      reachable = false;
      current = local.current();
      log.warn(
          "the configuration store is unreachable ({}); starting with {}",
          e.getMessage(),
          current.map(v -> "the last applied version " + v.version()).orElse("the file"));
    }
    Optional<String> lastRead = local.fileDigest();
    String digest = fromFile.digest();
    if (current.isPresent()) {
      ConfigVersion v = current.get();
      boolean keep =
          shared || v.digest().equals(digest) || lastRead.map(digest::equals).orElse(false);
      if (keep) {
        try {
          store.fetch(v);
          return new Start(load(v, name(v)), name(v), v, false, digest);
        } catch (ConfigException | IOException e) {
          log.error(
              "configuration version {} cannot be started ({}); starting with {} instead",
              v.version(),
              e.getMessage(),
              file);
        }
      } else {
        warnSuperseded(v);
      }
    }
    SluiceConfig config = load(read, file.toString(), false);
    boolean append = !shared || reachable && current.isEmpty();
    return new Start(config, file.toString(), fromFile, append, digest);
  }

  /**
   * The first snapshot of {@code start}, built by {@code publisher}; its problems name the files as
   * the YAML writes them, as a reload's do.
   */
  Snapshot build(ConfigPublisher publisher, Start start) throws ConfigException {
    try {
      return publisher.initial(start.config(), start.name());
    } catch (ConfigException e) {
      throw named(e, start.version().files(), start.version().source().fromFile());
    }
  }

  /**
   * Records what the node started with, once it is built and before it serves: a new version when
   * it came from the file (a cluster: only when the cluster had none), the file's digest as read.
   */
  synchronized void started(Start start) throws IOException {
    local.fileRead(start.fileDigest());
    ConfigVersion v = start.version();
    if (start.append()) {
      long expected = currentNumber();
      try {
        v = store.append(v, expected);
        log.info("configuration version {} recorded from {}", v.version(), file);
      } catch (ConfigStore.Conflict e) {
        // Another node bootstrapped the cluster first: its version arrives through the watch.
        log.info("the cluster already has a configuration: {}", e.getMessage());
        return;
      }
    }
    if (v.version() > 0) {
      store.applied(v);
      applied = v.version();
    }
  }

  /** Connects the running node; versions other nodes append are applied from now on. */
  synchronized void attach(SluiceNode running, AuditSink sink) {
    this.node = running;
    this.audit = sink;
    store.watch(this::onAppended);
  }

  /** The number of the version this node runs (0: none recorded). */
  public long applied() {
    return applied;
  }

  // ---- commands ----

  @Override
  public synchronized CommandResult push(
      Actor actor, String yaml, Map<String, String> files, String reason)
      throws ConfigException, IOException {
    FileRead read = new FileRead(yaml, files);
    SluiceConfig config = load(read, "pushed configuration", true);
    ConfigVersion draft = draft(read, actor, ConfigSource.PUSH, reason, null);
    return applyNew(actor, config, "pushed configuration", draft, "config-push", "pushed");
  }

  @Override
  public synchronized CommandResult rollback(Actor actor, long version, String reason)
      throws ConfigException, IOException {
    ConfigVersion v =
        store
            .version(version)
            .orElseThrow(
                () ->
                    new NoSuchElementException(
                        "configuration version " + version + " is not kept (see config history)"));
    store.fetch(v);
    SluiceConfig config = load(v, name(v));
    ConfigVersion draft =
        ConfigVersion.draft(
            v.yaml(),
            v.files(),
            actor.name(),
            actor.role(),
            ConfigSource.ROLLBACK,
            reason,
            clock.getAsLong(),
            v.version());
    return applyNew(
        actor, config, name(v), draft, "config-rollback", "rolled back to version " + version);
  }

  @Override
  public History history() throws IOException {
    try {
      return new History(currentNumber(), applied, store.versions());
    } catch (IOException e) {
      if (store == local) {
        throw e;
      }
      // Cut off from the cluster: what this node applied is the best it can say.
      return new History(
          local.current().map(ConfigVersion::version).orElse(0L), applied, local.versions());
    }
  }

  @Override
  public Optional<ConfigVersion> version(long n) throws IOException {
    try {
      return store.version(n);
    } catch (IOException e) {
      if (store == local) {
        throw e;
      }
      return local.version(n);
    }
  }

  @Override
  public BlobCache blobs() {
    return store.blobs();
  }

  /**
   * Reads the file again (SIGHUP, {@code sluice ctl reload}). When the file is unchanged since it
   * was last read but a push or rollback made another version current, nothing is applied and the
   * result says so: a stray SIGHUP never undoes a rollback. A changed file is applied as a new
   * version, with a warning when it supersedes a pushed or restored one.
   */
  @Override
  public synchronized CommandResult reload(Actor actor) throws ConfigException {
    try {
      FileRead read = readFile();
      ConfigVersion draft = draft(read, actor, ConfigSource.RELOAD, "reload of " + file, null);
      String digest = draft.digest();
      Optional<ConfigVersion> current = currentOrLocal();
      if (current.isPresent()
          && !current.get().digest().equals(digest)
          && local.fileDigest().map(digest::equals).orElse(false)) {
        ConfigVersion v = current.get();
        String message =
            file
                + " is unchanged since it was last read; version "
                + v.version()
                + " ("
                + v.source().label()
                + " by "
                + v.actor()
                + ") stays current. Edit the file to apply it, or use 'sluice ctl config push'";
        log.warn("{}", message);
        return new CommandResult(
            node.store().current().version(), false, message, Map.of("version", v.version()));
      }
      SluiceConfig config;
      try {
        config = load(read, file.toString(), false);
      } catch (ConfigException e) {
        node.reloadRejected();
        throw e;
      }
      if (current.isPresent() && current.get().digest().equals(digest)) {
        // The same content again (the local token may have changed): no new version.
        long n = current.get().version();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("file", file.toString());
        details.put("version", n);
        return FileConfigReloader.applyAndAudit(
            node,
            audit,
            config,
            file.toString(),
            actor,
            "config-reload",
            () -> "reloaded " + file + " (version " + n + ", unchanged)",
            details,
            () -> local.fileRead(digest));
      }
      current.ifPresent(this::warnSuperseded);
      return applyNew(actor, config, file.toString(), draft, "config-reload", "reloaded " + file);
    } catch (IOException e) {
      throw new ConfigException(
          file.toString(),
          "",
          "nothing was applied: the configuration store cannot record the version: "
              + e.getMessage());
    } catch (ConfigException e) {
      throw FileConfigReloader.rejected(file, actor, e);
    }
  }

  /** Says so when the file replaces a version a push or rollback made current. */
  private void warnSuperseded(ConfigVersion v) {
    if (!v.source().fromFile()) {
      log.warn(
          "{} changed since it was last read: it supersedes version {} ({} by {})",
          file,
          v.version(),
          v.source().label(),
          v.actor());
    }
  }

  // ---- applying ----

  /** Builds {@code config}, records {@code draft} as the next version, then publishes. */
  private CommandResult applyNew(
      Actor actor,
      SluiceConfig config,
      String name,
      ConfigVersion draft,
      String action,
      String what)
      throws ConfigException, IOException {
    if (!draft.source().fromFile() && Role.of(actor.role()) != Role.ADMIN) {
      ConfigChanges changes = ConfigChanges.between(node.store().current().config(), config);
      if (!changes.tokens().isEmpty() || changes.sections().contains("admin")) {
        throw new RoleRequired(
            "this version changes admin tokens or admin settings ("
                + changes.summary()
                + "): that needs an admin token");
      }
    }
    long expected = currentNumber();
    Map<String, Object> details = new LinkedHashMap<>();
    if (draft.source().fromFile()) {
      details.put("file", file.toString());
    } else if (draft.reason() != null && !draft.reason().isBlank()) {
      // The operator's why (a push's, a rollback's, a promoted shadow chain's) beside what changed.
      details.put("reason", draft.reason());
    }
    ConfigVersion[] recorded = new ConfigVersion[1];
    try {
      return FileConfigReloader.applyAndAudit(
          node,
          audit,
          config,
          name,
          actor,
          action,
          () -> what + " as version " + recorded[0].version(),
          details,
          () -> {
            ConfigVersion v = store.append(draft, expected);
            recorded[0] = v;
            store.applied(v);
            if (v.source().fromFile()) {
              local.fileRead(v.digest());
            }
            applied = v.version();
            details.put("version", v.version());
            details.put("sha256", v.sha256());
            if (v.restores() != null) {
              details.put("restores", v.restores());
            }
          });
    } catch (ConfigException e) {
      throw named(e, draft.files(), draft.source().fromFile());
    }
  }

  /** Applies a version another node appended, once every file it references is here. */
  private synchronized void onAppended(ConfigVersion v) {
    if (v.version() <= applied || node == null) {
      return;
    }
    try {
      store.fetch(v);
      SluiceConfig config = load(v, name(v));
      node.apply(
          config,
          name(v),
          () -> {
            store.applied(v);
            applied = v.version();
          });
      log.info(
          "applied configuration version {} ({} by {}: {})",
          v.version(),
          v.source().label(),
          v.actor(),
          v.reason());
    } catch (IOException | ConfigException e) {
      // Retried at every re-check; said loudly once per version.
      if (v.version() != refused) {
        refused = v.version();
        log.error(
            "configuration version {} is not applied, still serving version {}: {}",
            v.version(),
            applied,
            e.getMessage());
      } else {
        log.debug("configuration version {} still not applied: {}", v.version(), e.getMessage());
      }
    }
  }

  private long currentNumber() throws IOException {
    return store.current().map(ConfigVersion::version).orElse(0L);
  }

  private Optional<ConfigVersion> currentOrLocal() throws IOException {
    try {
      return store.current();
    } catch (IOException e) {
      return local.current();
    }
  }

  // ---- reading and checking ----

  /** YAML text and the files it references (as written, to the SHA-256 of their copies). */
  private record FileRead(String yaml, Map<String, String> files) {}

  /** Reads the file and copies the files it references into the blob cache. */
  private FileRead readFile() throws ConfigException, IOException {
    String yaml;
    try {
      yaml = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file.toString(), "", "file not found");
    } catch (IOException e) {
      throw new ConfigException(file.toString(), "", "cannot read: " + e.getMessage());
    }
    Map<String, String> files = new TreeMap<>();
    // Only the files it names are needed here: load() checks the configuration as it will run.
    // A file that does not bind strictly is read leniently, so its problems are reported with its
    // files found, not as files that cannot be read.
    SluiceConfig parsed = ConfigLoader.bind(yaml, baseDir);
    if (parsed == null) {
      parsed = ConfigLoader.read(yaml, file.toString(), baseDir, x -> x).config();
    }
    if (parsed != null) {
      for (String f : ConfigFiles.referenced(parsed).values()) {
        Path p = baseDir.resolve(f).normalize();
        if (Files.isRegularFile(p) && Files.isReadable(p)) {
          files.put(f, store.blobs().add(p));
        }
      }
    }
    return new FileRead(yaml, files);
  }

  private ConfigVersion draft(
      FileRead read, Actor actor, ConfigSource source, String reason, Long restores) {
    return ConfigVersion.draft(
        read.yaml(),
        read.files(),
        actor.name(),
        actor.role(),
        source,
        reason,
        clock.getAsLong(),
        restores);
  }

  /**
   * Kept version {@code n} as the node would run it (for explaining an earlier answer); throws when
   * it is no longer kept or cannot be loaded.
   */
  public SluiceConfig configOf(long n) throws IOException, ConfigException {
    ConfigVersion v =
        version(n)
            .orElseThrow(
                () ->
                    new ConfigException(
                        "configuration version " + n,
                        "",
                        "is no longer kept in the configuration history"));
    store.fetch(v);
    return load(v, name(v));
  }

  private static String name(ConfigVersion v) {
    return "configuration version " + v.version();
  }

  private SluiceConfig load(ConfigVersion v, String name) throws ConfigException {
    return load(new FileRead(v.yaml(), v.files()), name, true);
  }

  /**
   * Reads {@code read} as the node would run it: referenced files from their copies, this node's
   * own cluster section, the command-line overrides, node-local paths against the file's directory;
   * then checks it with {@link ConfigCheck}. Every problem names the files as the YAML writes them.
   */
  private SluiceConfig load(FileRead read, String name, boolean uploaded) throws ConfigException {
    List<ConfigProblem> known = new ArrayList<>();
    Map<String, String> copies = new HashMap<>();
    BlobCache blobs = store.blobs();
    UnaryOperator<SluiceConfig> adjust =
        c -> {
          for (Map.Entry<String, String> e : ConfigFiles.referenced(c).entrySet()) {
            String f = e.getValue();
            String sha = read.files().get(f);
            if (sha != null && blobs.has(sha)) {
              copies.put(f, blobs.path(sha).toString());
            } else {
              copies.put(f, stateDir.resolve("config").resolve("missing").toString());
              known.add(
                  new ConfigProblem(
                      name,
                      e.getKey(),
                      uploaded
                          ? "'" + f + "' was not uploaded with the configuration"
                          : "cannot read '"
                              + f
                              + "' (resolved to "
                              + baseDir.resolve(f).normalize()
                              + ")"));
            }
          }
          return overrides.apply(
              ConfigFiles.withCluster(
                  ConfigFiles.withFiles(c, f -> copies.getOrDefault(f, f)), cluster));
        };
    try {
      SluiceConfig config =
          ConfigCheck.check(
              ConfigLoader.read(read.yaml(), name, baseDir, adjust), name, known, false);
      return AdminBootstrapToken.applyTo(config, stateDir);
    } catch (ConfigException e) {
      throw named(withoutFollowOns(e, known), read.files(), !uploaded);
    } catch (IOException e) {
      throw new ConfigException(
          name, "admin.tokens", "cannot create the local admin token: " + e.getMessage());
    }
  }

  /**
   * {@code e} without the problems that only follow from a master file that is missing (the zone's
   * SOA and NS come from it): the missing file is the problem to fix.
   */
  private static ConfigException withoutFollowOns(ConfigException e, List<ConfigProblem> known) {
    List<String> zones = new ArrayList<>();
    for (ConfigProblem k : known) {
      if (k.path().startsWith("zones[") && k.path().endsWith("].file")) {
        zones.add(k.path().substring(0, k.path().length() - "file".length()));
      }
    }
    List<ConfigProblem> out = new ArrayList<>();
    for (ConfigProblem p : e.problems()) {
      boolean followOn =
          zones.stream().anyMatch(z -> p.path().equals(z + "soa") || p.path().equals(z + "ns"));
      if (!followOn) {
        out.add(p);
      }
    }
    return out.isEmpty() ? e : new ConfigException(out);
  }

  /**
   * {@code e} with the copies' paths replaced by the files' own names, in its messages and in the
   * paths of problems found in a file's records (which name the file read, the copy): the path the
   * file has here when the version came from this node's file ({@code local}), so the problem reads
   * as {@code sluice check} reports it, else the name the YAML gives it.
   */
  private ConfigException named(ConfigException e, Map<String, String> files, boolean local) {
    Map<String, String> names = new HashMap<>();
    for (Map.Entry<String, String> f : files.entrySet()) {
      if (ConfigVersion.isSha256(f.getValue())) {
        names.put(
            store.blobs().path(f.getValue()).toString(),
            local ? baseDir.resolve(f.getKey()).normalize().toString() : f.getKey());
      }
    }
    List<ConfigProblem> out = new ArrayList<>();
    for (ConfigProblem p : e.problems()) {
      out.add(new ConfigProblem(p.file(), named(p.path(), names), named(p.message(), names)));
    }
    return new ConfigException(out);
  }

  private static String named(String text, Map<String, String> names) {
    if (text == null) {
      return null;
    }
    for (Map.Entry<String, String> n : names.entrySet()) {
      text = text.replace(n.getKey(), n.getValue());
    }
    return text;
  }
}
