package io.sluice.server.app;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.rest.AdminServer;
import io.sluice.core.config.AdminConfig;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigCompiler;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.TrafficSystem;
import io.sluice.dns.response.ServedZones;
import io.sluice.policy.PolicyPlanner;
import io.sluice.probe.ProbeService;
import java.io.IOException;
import java.nio.file.Path;
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

  private final PrometheusMetrics metrics;
  private final TrafficSystem traffic;
  private final ProbeService probes;
  private final SluiceNode node;
  private final AdminServer admin;

  private SluiceRuntime(
      PrometheusMetrics metrics,
      TrafficSystem traffic,
      ProbeService probes,
      SluiceNode node,
      AdminServer admin) {
    this.metrics = metrics;
    this.traffic = traffic;
    this.probes = probes;
    this.node = node;
    this.admin = admin;
  }

  /**
   * Starts every part for {@code config}, read from {@code file} with {@code overrides} applied;
   * {@code config} must already be validated. Parts started before a failure are closed again.
   */
  public static SluiceRuntime start(SluiceConfig config, Path file, CliOverrides overrides)
      throws ConfigException, IOException, InterruptedException {
    return start(config, file, overrides, List.of());
  }

  /**
   * Like {@link #start(SluiceConfig, Path, CliOverrides)}, with {@code extra} compilers run after
   * the built-in ones at start and on every reload (tests use it to make a reload fail midway).
   */
  static SluiceRuntime start(
      SluiceConfig config, Path file, CliOverrides overrides, List<ConfigCompiler> extra)
      throws ConfigException, IOException, InterruptedException {
    // Start and reload share one path: every module builds its share of the configuration (zones
    // and encoded answers, the compiled policy chain), each once, before anything is published.
    // Everything that can reject the configuration thus runs before anything opens state or
    // sockets.
    List<ConfigCompiler> compilers = new ArrayList<>();
    compilers.add(ServedZones.compiler());
    compilers.add(PolicyPlanner.compiler());
    compilers.addAll(extra);
    ConfigPublisher publisher = new ConfigPublisher(compilers);
    Snapshot first = publisher.initial(config, file.toString());
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
    try {
      PolicyPlanner planner = new PolicyPlanner(store, gslb, file.toString());
      traffic = TrafficSystem.open(store, config.stateDirectory(), Ticker.SYSTEM, gslb);
      // Verdicts go out with the controller's reaction to them, in one snapshot.
      probes =
          ProbeService.start(
              store, traffic.healthPublisher(), traffic.auditSink(), gslb, Ticker.SYSTEM);
      node = SluiceNode.start(store, publisher, planner, gslb);
      FileConfigReloader reloader = new FileConfigReloader(file, overrides, node);
      HangupReload.install(reloader);
      if (config.admin().enabled()) {
        AdminConfig adminConfig =
            AdminBootstrapToken.apply(config.admin(), config.stateDirectory());
        if (config.admin().tokens().isEmpty()) {
          log.info(
              "admin.tokens is empty: a local admin token is in {} (sluice ctl reads it)",
              config.stateDirectory().resolve(AdminBootstrapToken.FILE));
        }
        admin =
            new AdminServer(
                adminConfig,
                store,
                traffic.controlPlane(),
                reloader,
                planner,
                probes.reportSink(),
                metrics);
        admin.start();
        admin.ready(true);
        log.info("admin API on {}:{}", adminConfig.listen(), admin.port());
      }
      return new SluiceRuntime(metrics, traffic, probes, node, admin);
    } catch (ConfigException | IOException | InterruptedException | RuntimeException e) {
      new SluiceRuntime(metrics, traffic, probes, node, admin).close();
      throw e;
    }
  }

  /** The DNS node (store, responder, port). */
  public SluiceNode node() {
    return node;
  }

  /** The admin API, or null when disabled. */
  public AdminServer admin() {
    return admin;
  }

  /** The probe service. */
  public ProbeService probes() {
    return probes;
  }

  /** The traffic system (control plane, audit). */
  public TrafficSystem traffic() {
    return traffic;
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.ready(false);
      closeQuietly("admin API", admin);
    }
    if (node != null) {
      closeQuietly("DNS listeners", node);
    }
    if (probes != null) {
      closeQuietly("probes", probes);
    }
    if (traffic != null) {
      closeQuietly("traffic system", traffic);
    }
    closeQuietly("metrics", metrics);
  }

  private static void closeQuietly(String what, AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      log.warn("closing the {} failed: {}", what, e.toString());
    }
  }
}
