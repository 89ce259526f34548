package io.sluice.server.app;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ResponderSettings;
import io.sluice.dns.server.DnsServer;
import io.sluice.dns.zone.ZoneCompiler;
import io.sluice.dns.zone.ZoneIndex;
import java.util.function.Function;

/**
 * One running Sluice node: the snapshot store, the planner, the responder and the DNS listeners,
 * wired together. The planner is passed in as a factory over the store, so the policy chain, probes
 * and admin API plug in here without the DNS packages knowing them.
 */
public final class SluiceNode implements AutoCloseable {
  private final SnapshotStore store;
  private final Responder responder;
  private final DnsServer server;
  private final GslbMetrics metrics;

  private SluiceNode(
      SnapshotStore store, Responder responder, DnsServer server, GslbMetrics metrics) {
    this.store = store;
    this.responder = responder;
    this.server = server;
    this.metrics = metrics;
  }

  /**
   * Compiles the zones of {@code config} (named {@code name} in errors), creates the store and the
   * planner, and binds the DNS listeners.
   */
  public static SluiceNode start(
      SluiceConfig config,
      String name,
      Function<SnapshotStore, AnswerPlanner> planners,
      GslbMetrics metrics)
      throws ConfigException, InterruptedException {
    ZoneIndex index = ZoneCompiler.compile(config, name);
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    return start(config, index, store, planners.apply(store), metrics);
  }

  /**
   * Like {@link #start(SluiceConfig, String, Function, GslbMetrics)}, for callers that build the
   * store and the planner themselves (for example to share the store with probes and the admin
   * API); {@code store} must hold {@code config}.
   */
  public static SluiceNode start(
      SluiceConfig config,
      String name,
      SnapshotStore store,
      AnswerPlanner planner,
      GslbMetrics metrics)
      throws ConfigException, InterruptedException {
    return start(config, ZoneCompiler.compile(config, name), store, planner, metrics);
  }

  /** Like the others, with the zones already compiled from {@code config}. */
  public static SluiceNode start(
      SluiceConfig config,
      ZoneIndex index,
      SnapshotStore store,
      AnswerPlanner planner,
      GslbMetrics metrics)
      throws InterruptedException {
    Responder responder =
        new Responder(index, ResponderSettings.of(config.dns()), planner, metrics);
    DnsServer server = DnsServer.start(config.dns(), responder, metrics);
    return new SluiceNode(store, responder, server, metrics);
  }

  /**
   * Validates and compiles {@code config}, then swaps it in: the store first (the planner sees the
   * new services), then the zone data. An invalid config throws and changes nothing. Listen
   * addresses, port and threads are bound at start and only change with a restart.
   */
  public synchronized Snapshot apply(SluiceConfig config, String name) throws ConfigException {
    ZoneIndex index;
    try {
      index = ZoneCompiler.compile(config, name);
    } catch (ConfigException e) {
      metrics.configReload(false);
      throw e;
    }
    Snapshot next = store.update(s -> s.withConfig(config));
    responder.install(index, ResponderSettings.of(config.dns()));
    metrics.configReload(true);
    return next;
  }

  /** Counts a reload whose file was rejected before it could be applied. */
  void reloadRejected() {
    metrics.configReload(false);
  }

  public SnapshotStore store() {
    return store;
  }

  public Responder responder() {
    return responder;
  }

  public DnsServer server() {
    return server;
  }

  /** The DNS port (UDP and TCP). */
  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
  }
}
