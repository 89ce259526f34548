package io.sluice.server.app;

import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.FunctionCounter;
import io.sluice.admin.cli.NodeRecord;
import io.sluice.admin.metrics.ClusterMeters;
import io.sluice.admin.metrics.DivergenceMeters;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.metrics.StateMeters;
import io.sluice.admin.rest.AdminServer;
import io.sluice.cluster.ClusterHealth;
import io.sluice.cluster.ClusterMembership;
import io.sluice.cluster.EtcdClients;
import io.sluice.cluster.EtcdConfigStore;
import io.sluice.cluster.EtcdKeyFiles;
import io.sluice.core.config.AdminConfig;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.history.ConfigStore;
import io.sluice.core.config.history.FileConfigStore;
import io.sluice.core.divergence.PeriodicDivergenceCheck;
import io.sluice.core.health.PoolLoadFeed;
import io.sluice.core.history.PastStates;
import io.sluice.core.history.StateHistory;
import io.sluice.core.notify.SharedCursors;
import io.sluice.core.notify.Webhooks;
import io.sluice.core.spi.CookieRotation;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Leadership;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigCompiler;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.store.DiskWrites;
import io.sluice.core.store.StateArchive;
import io.sluice.core.store.StateFormat;
import io.sluice.core.traffic.PrometheusMetric;
import io.sluice.core.traffic.TrafficController;
import io.sluice.core.traffic.TrafficSystem;
import io.sluice.dns.client.DnsjavaVerifier;
import io.sluice.dns.dnssec.SigningMaintenance;
import io.sluice.dns.dnssec.ZoneSigning;
import io.sluice.dns.dnssec.keys.KeyDirectory;
import io.sluice.dns.dnssec.keys.KeyManager;
import io.sluice.dns.dnssec.keys.KeyTicks;
import io.sluice.dns.https.HttpsSettings;
import io.sluice.dns.response.CookieKeyring;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.server.InheritedSockets;
import io.sluice.dns.tap.DnstapOutput;
import io.sluice.dns.transfer.TransferZones;
import io.sluice.policy.PolicyPlanner;
import io.sluice.probe.ProbeService;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Sluice process, wired: one snapshot store shared by the traffic system (restored from the
 * state directory first, so the first answer already follows the persisted plan), the probes, the
 * policy chain, the DNS listeners and the admin API. Closing stops them in reverse order.
 */
public final class SluiceRuntime implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SluiceRuntime.class);
  // How often pool loads are pulled when due and their staleness re-checked.
  private static final Duration LOAD_TICK = Duration.ofSeconds(1);

  private final PrometheusMetrics metrics;
  private final TrafficSystem traffic;
  private final ProbeService probes;
  private final SluiceNode node;
  private final AdminServer admin;
  private final PoolLoadFeed loads;
  private final Path stateDir;
  private final AutoCloseable configHistory;
  private ClusterHealth clusterHealth;
  // The node's link to etcd; null on a single node.
  private ClusterConnection cluster;
  // This node's lease, election and registry entry; null on a single node.
  private ClusterMembership membership;
  // Signature refresh and key timing; idle when no zone is signed.
  private SigningMaintenance signing;
  // The periodic answer-divergence check; null on a single node.
  private PeriodicDivergenceCheck divergence;
  // The policy planner's sampler and the state history; closed after the DNS listeners.
  private LookBack lookBack;
  // The DNSSEC keys of the signed zones, and the clock that tells the signer of timing instants.
  private KeyDirectory dnssecKeys;
  private AutoCloseable keyTicks;
  // Set once the state parts are closed (handed over or stopping); guarded by this.
  private boolean released;
  private boolean closed;
  // Sends the audited changes to the configured webhooks, from the outbox.
  private Webhooks webhooks;

  private SluiceRuntime(
      PrometheusMetrics metrics,
      TrafficSystem traffic,
      ProbeService probes,
      SluiceNode node,
      AdminServer admin,
      PoolLoadFeed loads,
      Path stateDir,
      AutoCloseable configHistory) {
    this.metrics = metrics;
    this.traffic = traffic;
    this.probes = probes;
    this.node = node;
    this.admin = admin;
    this.loads = loads;
    this.stateDir = stateDir;
    this.configHistory = configHistory;
  }

  /** Closes {@code first}, then {@code second} even when the first fails. */
  private static AutoCloseable chain(AutoCloseable first, AutoCloseable second) {
    return () -> {
      try {
        first.close();
      } finally {
        second.close();
      }
    };
  }

  /**
   * Closes {@code part} (when there is one), then the etcd client it uses (when clustered): the
   * configuration store, or the DNSSEC key exchange.
   */
  private static AutoCloseable closing(AutoCloseable part, Client etcd) {
    return () -> {
      if (part != null) {
        part.close();
      }
      if (etcd != null) {
        etcd.close();
      }
    };
  }

  /**
   * Starts every part for {@code config}, read from {@code file} with {@code overrides} applied;
   * {@code config} must already be validated, admin TLS files included ({@link ConfigCheck#load}
   * does both before any socket is bound). Parts started before a failure are closed again.
   */
  public static SluiceRuntime start(SluiceConfig config, Path file, CliOverrides overrides)
      throws ConfigException, IOException, InterruptedException {
    return start(config, file, overrides, List.of(), InheritedSockets.NONE, Ticker.SYSTEM);
  }

  /**
   * Like {@link #start(SluiceConfig, Path, CliOverrides)}, with {@code clock} as the traffic
   * controller's and the admin API's clock: what starts and ends maintenance windows, ramp windows
   * and confirmation timeouts. Tests step a manual clock; probes keep the system clock.
   */
  public static SluiceRuntime start(
      SluiceConfig config, Path file, CliOverrides overrides, Ticker clock)
      throws ConfigException, IOException, InterruptedException {
    return start(config, file, overrides, List.of(), InheritedSockets.NONE, clock);
  }

  /**
   * Like {@link #start(SluiceConfig, Path, CliOverrides)}, reading the listening sockets in {@code
   * inherited} (handed over by the node this one takes over from) instead of binding new ones.
   */
  static SluiceRuntime start(
      SluiceConfig config, Path file, CliOverrides overrides, InheritedSockets inherited)
      throws ConfigException, IOException, InterruptedException {
    return start(config, file, overrides, List.of(), inherited, Ticker.SYSTEM);
  }

  /**
   * Like {@link #start(SluiceConfig, Path, CliOverrides)}, with {@code extra} compilers run after
   * the built-in ones at start and on every reload.
   */
  static SluiceRuntime start(
      SluiceConfig config, Path file, CliOverrides overrides, List<ConfigCompiler> extra)
      throws ConfigException, IOException, InterruptedException {
    return start(config, file, overrides, extra, InheritedSockets.NONE, Ticker.SYSTEM);
  }

  /**
   * The whole start: {@code extra} compilers run after the built-in ones at start and on every
   * reload (tests use them to make a reload fail midway); {@code clock} is the controller's and the
   * admin API's clock.
   */
  private static SluiceRuntime start(
      SluiceConfig config,
      Path file,
      CliOverrides overrides,
      List<ConfigCompiler> extra,
      InheritedSockets inherited,
      Ticker clock)
      throws ConfigException, IOException, InterruptedException {
    // The published configuration holds the tokens the admin API accepts (the local one if the
    // file declares none), so that a reload adds and revokes tokens with the same swap.
    boolean localToken = config.admin().tokens().isEmpty();
    // Before anything reads or writes the state directory: one a newer release wrote is refused
    // whole, one an older release wrote is upgraded (docs/state.md, "Format versions").
    StateFormat.open(config.stateDirectory());
    // A backup's staging copy left by a process stopped in the middle of it.
    StateArchive.removeStaging(config.stateDirectory());
    config = AdminBootstrapToken.applyTo(config, config.stateDirectory());
    // Start and reload share one path: every module builds its share of the configuration (zones
    // and encoded answers, the compiled policy chain), each once, before anything is published.
    // Everything that can reject the configuration thus runs before anything opens state or
    // sockets.
    List<ConfigCompiler> compilers = new ArrayList<>();
    // A cluster node's cookie secrets are the cluster's, set without a reload: one keyring for the
    // node's life, which its configuration's secret files only seed.
    CookieKeyring sharedCookies = config.clustered() ? new CookieKeyring() : null;
    // The keys of the signed zones, loaded by each build before its zones are compiled and signed;
    // rollover steps and timing instants change them between builds.
    KeyDirectory dnssecKeys = new KeyDirectory(Ticker.SYSTEM);
    // Every node of a cluster signs with the cluster's keys, shared on etcd (docs/dnssec.md).
    Client keysClient = null;
    if (config.clustered()) {
      keysClient = EtcdClients.create(config);
      dnssecKeys.share(EtcdKeyFiles.create(keysClient, config.cluster().etcd().timeout()));
    }
    // Stops sharing DNSSEC keys, then closes the etcd client it used.
    AutoCloseable keyExchange = closing(dnssecKeys.exchange(), keysClient);
    compilers.add(dnssecKeys.compiler());
    compilers.add(
        ServedZones.compiler(sharedCookies, new ZoneSigning(c -> dnssecKeys, Ticker.SYSTEM)));
    compilers.add(HttpsSettings.compiler());
    compilers.add(PolicyPlanner.compiler());
    compilers.addAll(extra);
    ConfigPublisher publisher = new ConfigPublisher(compilers);
    // The history of applied configurations decides what runs: the file, or the version a push or
    // rollback made current (a cluster's current version); it runs from the history's copies.
    FileConfigStore localHistory = FileConfigStore.open(config.stateDirectory());
    ConfigStore history = localHistory;
    Client etcd = null;
    if (config.clustered() && config.cluster().sharedConfig()) {
      etcd = EtcdClients.create(config);
      history = EtcdConfigStore.open(etcd, localHistory, config.cluster().etcd().timeout());
    }
    AutoCloseable configHistory = chain(closing(history, etcd), keyExchange);
    NodeConfigs versions = NodeConfigs.create(file, overrides, config, history, localHistory);
    NodeConfigs.Start chosen;
    Snapshot first;
    try {
      chosen = versions.chooseStart();
      first = versions.build(publisher, chosen);
      versions.started(chosen);
    } catch (ConfigException | IOException | RuntimeException e) {
      closeQuietly("configuration history", configHistory);
      throw e;
    }
    SluiceConfig stateConfig = config;
    config = chosen.config();
    for (String warning : PolicyPlanner.warnings(first.artifacts())) {
      log.warn("{}", warning);
    }
    SnapshotStore store = new SnapshotStore(first);
    PrometheusMetrics metrics = new PrometheusMetrics();
    GslbMetrics gslb = metrics.gslb();
    TrafficSystem traffic = null;
    ProbeService probes = null;
    SluiceNode node = null;
    AdminServer admin = null;
    PoolLoadFeed loads = null;
    ClusterHealth clusterHealth = null;
    ClusterConnection cluster = null;
    ClusterMembership membership = null;
    PeriodicDivergenceCheck divergence = null;
    LookBack lookBack = null;
    SigningMaintenance signing = null;
    Webhooks webhooks = null;
    try {
      PolicyPlanner planner = new PolicyPlanner(store, gslb, file.toString());
      lookBack = new LookBack(planner);
      FunctionCounter.builder(
              "sluice_decision_samples_dropped", planner, PolicyPlanner::droppedSamples)
          .description(
              "Sampled answers (shadow chain, decision log) dropped because the sampler was behind")
          .register(metrics.registry());
      // A cluster node shares its operator state through etcd; its state directory keeps its copy.
      // Its automatic steps run only while it leads. Nothing here waits for etcd.
      cluster = ClusterConnection.open(stateConfig);
      CookieRotation cookieRotation = null;
      if (cluster != null) {
        cookieRotation = cluster.shareCookies(sharedCookies, store);
        membership = ClusterMembership.open(cluster.client(), config);
        ClusterMeters.register(metrics.registry(), membership.members());
      }
      traffic =
          cluster == null
              ? TrafficSystem.open(store, stateConfig.stateDirectory(), clock, gslb, planner)
              : TrafficSystem.openClustered(
                  store,
                  stateConfig.stateDirectory(),
                  clock,
                  gslb,
                  planner,
                  cluster.state(),
                  membership.leadership());
      // Every audited change goes to the webhook outbox from here on (in a cluster, the leader
      // sends); reloads bring new webhooks and secrets with the snapshot that publishes them.
      webhooks =
          Webhooks.start(
              new Webhooks.Setup(
                  stateConfig.stateDirectory(),
                  traffic.auditLog(),
                  config.localVantage(),
                  config.clustered() ? config.cluster().prefix() : null,
                  Ticker.SYSTEM,
                  membership == null ? Leadership.ALWAYS : membership.leadership(),
                  cluster == null ? SharedCursors.NONE : cluster.webhookCursors(),
                  gslb,
                  new SecureRandom(),
                  DiskWrites.DIRECT),
              config);
      Webhooks hooks = webhooks;
      SluiceConfig[] heardConfig = {store.current().config()};
      store.addListener(
          s -> {
            if (s.config() != heardConfig[0]) {
              heardConfig[0] = s.config();
              hooks.configure(s.config());
            }
          });
      // In a cluster the verdicts come from the quorum over every node's opinions, shared on etcd.
      OpinionExchange opinions = OpinionExchange.NONE;
      if (config.clustered()) {
        clusterHealth = ClusterHealth.open(config, cluster.client(), membership.lease());
        opinions = clusterHealth.opinions();
      }
      // Verdicts go out with the controller's reaction to them, in one snapshot.
      probes =
          ProbeService.start(
              store, traffic.healthPublisher(), traffic.auditSink(), gslb, Ticker.SYSTEM, opinions);
      // State gauges (verdicts, usable endpoints, freezes, ramps, pending confirmations), computed
      // at each scrape from the published state.
      StateMeters.register(
          metrics, store, traffic.controller()::state, probes::evidence, Ticker.SYSTEM);
      loads =
          PoolLoadFeed.create(
              store, traffic.auditSink(), new PrometheusMetric()::query, Ticker.SYSTEM, gslb);
      loads.start(LOAD_TICK);
      PastStates past = PastStates.NONE;
      if (config.observability().history().enabled()) {
        // Started after the durable traffic state is restored: the first state recorded is the
        // one served.
        StateHistory stateHistory =
            StateHistory.open(
                stateConfig.stateDirectory(),
                config.observability().history(),
                System::currentTimeMillis,
                versions::applied);
        lookBack.history(stateHistory);
        stateHistory.follow(store);
        past =
            stateHistory.over(
                n -> {
                  SluiceConfig running = store.current().config();
                  return n == versions.applied() ? running : versions.configOf(n);
                });
      }
      node = SluiceNode.start(store, publisher, planner, gslb, inherited);
      if (config.observability().dnstap().enabled()) {
        DnstapOutput dnstap =
            DnstapOutput.open(config.observability().dnstap(), stateConfig.stateDirectory());
        node.responder().tap(dnstap);
        lookBack.dnstap(dnstap);
        FunctionCounter.builder("sluice_dnstap_dropped", dnstap, DnstapOutput::dropped)
            .description(
                "dnstap messages dropped: the writer's queue was full or no reader was connected")
            .register(metrics.registry());
        FunctionCounter.builder("sluice_dnstap_messages", dnstap, DnstapOutput::written)
            .description("dnstap messages written (a query and its response are two)")
            .register(metrics.registry());
      }
      SluiceNode signedNode = node;
      signing =
          SigningMaintenance.start(
              store,
              dnssecKeys,
              () -> {
                try {
                  signedNode.apply(store.current().config(), "DNSSEC key change");
                } catch (ConfigException e) {
                  log.error("cannot sign with the changed DNSSEC keys: {}", e.getMessage());
                }
              });
      TransferZones offered = store.current().artifacts().get(TransferZones.class);
      if (offered != null) {
        offered.describe().forEach(line -> log.info("{}", line));
      }
      versions.attach(node, traffic.auditSink());
      // The pools' dynamic members (operator state, added through the API) are served on top of
      // every applied configuration, and published again whenever they change.
      TrafficController members = traffic.controller();
      SluiceNode served = node;
      node.overlay(c -> c.withDynamicMembers(members.state().members()));
      members.onMembersChanged(
          () -> {
            try {
              served.republish();
            } catch (ConfigException e) {
              log.error("the dynamic members could not be served: {}", e.getMessage());
            }
          });
      HangupReload.install(versions);
      if (config.admin().enabled()) {
        AdminConfig adminConfig = config.admin();
        if (localToken) {
          log.info(
              "admin.tokens is empty: a local admin token is in {} (sluice ctl reads it)",
              config.stateDirectory().resolve(AdminBootstrapToken.FILE));
        }
        admin =
            new AdminServer(
                adminConfig,
                store,
                traffic.controlPlane(),
                versions,
                planner,
                probes.reportSink(),
                metrics,
                clock);
        if (membership != null) {
          admin.withCluster(membership.members());
        }
        admin.withCookieRotation(cookieRotation).withProbes(probes);
        admin.withDnssecKeys(
            new KeyManager(dnssecKeys, traffic.auditSink(), KeyManager.KeyStore.of(dnssecKeys)));
        admin
            .withLoadFeed(loads)
            .withConfigCommands(versions)
            .withObservability(planner, past)
            .withStateBackups(BackupCommands.source(stateConfig, traffic, localHistory))
            .start();
        admin.ready(true);
        log.info("admin API on {}:{}", adminConfig.listen(), admin.port());
      }
      NodeRecord addresses = recordAddresses(config, stateConfig.stateDirectory(), node, admin);
      if (membership != null) {
        // Joins the election only now: a new leader catches up with the shared state, then steps.
        TrafficController controller = traffic.controller();
        membership.start(
            controller::catchUp,
            controller::appliedRevision,
            addresses.dns(),
            addresses.adminUrl());
        // Off the query path, on its own thread: do the members answer alike?
        divergence =
            PeriodicDivergenceCheck.start(
                store,
                membership.members(),
                planner::geoIpSamples,
                new DnsjavaVerifier(),
                Ticker.SYSTEM);
        DivergenceMeters.register(metrics.registry(), divergence);
      }
      SluiceRuntime runtime =
          new SluiceRuntime(
              metrics,
              traffic,
              probes,
              node,
              admin,
              loads,
              stateConfig.stateDirectory(),
              configHistory);
      runtime.clusterHealth = clusterHealth;
      runtime.cluster = cluster;
      runtime.membership = membership;
      runtime.divergence = divergence;
      runtime.lookBack = lookBack;
      runtime.signing = signing;
      runtime.dnssecKeys = dnssecKeys;
      runtime.keyTicks = KeyTicks.start(dnssecKeys);
      runtime.webhooks = webhooks;
      return runtime;
    } catch (ConfigException | IOException | InterruptedException | RuntimeException e) {
      SluiceRuntime partial =
          new SluiceRuntime(metrics, traffic, probes, node, admin, loads, null, configHistory);
      partial.clusterHealth = clusterHealth;
      partial.cluster = cluster;
      partial.membership = membership;
      partial.divergence = divergence;
      partial.lookBack = lookBack;
      partial.signing = signing;
      partial.webhooks = webhooks;
      partial.close();
      throw e;
    }
  }

  /**
   * Records where this node really listens beside its local token, so that {@code sluice ctl
   * --state-dir} (and the launcher) reach this node, whatever ports it was started with; returns
   * them, for the cluster's registry entry when {@code cluster.advertise} does not set them.
   */
  private static NodeRecord recordAddresses(
      SluiceConfig config, Path stateDir, SluiceNode node, AdminServer admin) throws IOException {
    String url = null;
    if (admin != null) {
      url =
          (config.admin().tls() == null ? "http://" : "https://")
              + reachable(config.admin().listen())
              + ":"
              + admin.port();
    }
    String dns = reachable(config.dns().listen().get(0)) + ":" + node.port();
    NodeRecord.write(stateDir, url, dns);
    return new NodeRecord(ProcessHandle.current().pid(), url, dns);
  }

  /** A listen address as a client on this host dials it: wildcards become loopback. */
  private static String reachable(String listen) {
    String host =
        switch (listen) {
          case "0.0.0.0" -> "127.0.0.1";
          case "::", "::0" -> "::1";
          default -> listen;
        };
    return host.contains(":") ? "[" + host + "]" : host;
  }

  /** The shadow sampler, the state history and dnstap of this node. */
  public LookBack lookBack() {
    return lookBack;
  }

  /** The DNS node (store, responder, port). */
  public SluiceNode node() {
    return node;
  }

  /** The admin API, or null when disabled. */
  public AdminServer admin() {
    return admin;
  }

  /** The pool load feed of the capacity step. */
  public PoolLoadFeed loads() {
    return loads;
  }

  /** The periodic answer-divergence check, or null on a single node. */
  public PeriodicDivergenceCheck divergence() {
    return divergence;
  }

  /** The DNSSEC keys of the signed zones (a source the signer reads and listens to). */
  public KeyDirectory dnssecKeys() {
    return dnssecKeys;
  }

  /** The probe service. */
  public ProbeService probes() {
    return probes;
  }

  /** This node's part in its cluster (lease, leadership, members), or null on a single node. */
  public ClusterMembership membership() {
    return membership;
  }

  /** The traffic system (control plane, audit). */
  public TrafficSystem traffic() {
    return traffic;
  }

  /**
   * Hands the state directory, the admin port and the cluster membership over to a process taking
   * over: stops the admin API (its connections are refused from now on, so no change can be
   * acknowledged and then lost), closes the probes and the traffic system (releasing the store's
   * lock; every acknowledged change is already in its journal) and leaves the cluster. The DNS and
   * DoH listeners answer on from the last published state. Idempotent.
   */
  public synchronized void releaseState() {
    if (released) {
      return;
    }
    released = true;
    closeStateParts();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (!released) {
        released = true;
        closeStateParts();
      }
    }
    if (node != null) {
      closeQuietly("DNS listeners", node);
    }
    closeQuietly("metrics", metrics);
  }

  private void closeStateParts() {
    if (stateDir != null) {
      try {
        NodeRecord.remove(stateDir);
      } catch (IOException e) {
        log.warn("cannot remove {}: {}", stateDir.resolve(NodeRecord.FILE), e.toString());
      }
    }
    if (divergence != null) {
      divergence.close();
    }
    if (keyTicks != null) {
      closeQuietly("DNSSEC key timer", keyTicks);
    }
    if (signing != null) {
      signing.close();
    }
    if (membership != null) {
      // First, so that another node takes the lead at once and this node's keys vanish now.
      closeQuietly("cluster membership", membership);
    }
    if (admin != null) {
      admin.ready(false);
      closeQuietly("admin API", admin);
    }
    if (loads != null) {
      closeQuietly("pool load feed", loads);
    }
    if (probes != null) {
      closeQuietly("probes", probes);
    }
    if (clusterHealth != null) {
      closeQuietly("health opinion exchange", clusterHealth);
    }
    if (webhooks != null) {
      closeQuietly("webhooks", webhooks);
    }
    if (lookBack != null) {
      // Their files are in the state directory too: a process taking over opens them next. The
      // answers given after this are not tapped or sampled.
      if (node != null) {
        node.responder().tap(null);
      }
      closeQuietly("decision sampler, state history and dnstap", lookBack);
    }
    if (traffic != null) {
      closeQuietly("traffic system", traffic);
    }
    if (cluster != null) {
      closeQuietly("etcd connection", cluster);
    }
    if (configHistory != null) {
      closeQuietly("configuration history", configHistory);
    }
  }

  private static void closeQuietly(String what, AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.warn("closing the {} failed: {}", what, e.toString());
    }
  }
}
