package io.sluice.server.app;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ResponderSettings;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.server.DnsServer;
import io.sluice.dns.transfer.Notifier;
import io.sluice.dns.zone.ZoneCompiler;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;

/**
 * One running Sluice node: the snapshot store, the planner, the responder and the DNS listeners,
 * wired together. The planner is passed in as a factory over the store, so the policy chain, probes
 * and admin API plug in here without the DNS packages knowing them. Configurations reach the node
 * through its {@link ConfigPublisher}: built whole off the query path, then published in one swap.
 */
public final class SluiceNode implements AutoCloseable {
  private final SnapshotStore store;
  private final ConfigPublisher publisher;
  private final Responder responder;
  private final DnsServer server;
  private final GslbMetrics metrics;
  private Notifier notifier;

  private SluiceNode(
      SnapshotStore store,
      ConfigPublisher publisher,
      Responder responder,
      DnsServer server,
      GslbMetrics metrics) {
    this.store = store;
    this.publisher = publisher;
    this.responder = responder;
    this.server = server;
    this.metrics = metrics;
  }

  /**
   * Builds everything {@code config} (named {@code name} in errors) needs, creates the store with
   * it and the planner over the store, and binds the DNS listeners.
   */
  public static SluiceNode start(
      SluiceConfig config,
      String name,
      Function<SnapshotStore, AnswerPlanner> planners,
      GslbMetrics metrics)
      throws ConfigException, InterruptedException {
    return start(config, name, planners, metrics, Ticker.SYSTEM);
  }

  /**
   * As {@link #start(SluiceConfig, String, Function, GslbMetrics)}, with the responder reading time
   * (rate limit buckets, cookie timestamps) from {@code ticker}.
   */
  public static SluiceNode start(
      SluiceConfig config,
      String name,
      Function<SnapshotStore, AnswerPlanner> planners,
      GslbMetrics metrics,
      Ticker ticker)
      throws ConfigException, InterruptedException {
    ConfigPublisher publisher = new ConfigPublisher(List.of(ServedZones.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, name));
    return start(store, publisher, null, planners.apply(store), metrics, ticker);
  }

  /**
   * Like {@link #start(SluiceConfig, String, Function, GslbMetrics)}, for callers that build the
   * store and the planner themselves from a bare snapshot of {@code config}; the zones are compiled
   * here and later reloads publish them with the configuration.
   */
  public static SluiceNode start(
      SluiceConfig config,
      String name,
      SnapshotStore store,
      AnswerPlanner planner,
      GslbMetrics metrics)
      throws ConfigException, InterruptedException {
    ConfigPublisher publisher = new ConfigPublisher(List.of(ServedZones.compiler()));
    ServedZones zones =
        ServedZones.build(ZoneCompiler.compile(config, name), ResponderSettings.of(config, name));
    return start(store, publisher, zones, planner, metrics, Ticker.SYSTEM);
  }

  /**
   * Binds the DNS listeners for a store whose current snapshot was built by {@code publisher}
   * (which must include {@link ServedZones#compiler()}); reloads go through the same publisher.
   */
  public static SluiceNode start(
      SnapshotStore store, ConfigPublisher publisher, AnswerPlanner planner, GslbMetrics metrics)
      throws InterruptedException {
    if (store.current().artifacts().get(ServedZones.class) == null) {
      throw new IllegalArgumentException("the store's snapshot was not built with the zones");
    }
    // No fallback: every snapshot carries its zones, and the first ones must not stay reachable.
    return start(store, publisher, null, planner, metrics, Ticker.SYSTEM);
  }

  private static SluiceNode start(
      SnapshotStore store,
      ConfigPublisher publisher,
      ServedZones zones,
      AnswerPlanner planner,
      GslbMetrics metrics,
      Ticker ticker)
      throws InterruptedException {
    Responder responder = new Responder(store, zones, planner, metrics, ticker);
    DnsServer server = DnsServer.start(store.current().config().dns(), responder, store, metrics);
    SluiceNode node = new SluiceNode(store, publisher, responder, server, metrics);
    node.notifier = Notifier.start(store, metrics);
    return node;
  }

  /**
   * Builds everything {@code config} needs (zone index, encoded answers and whatever the other
   * modules' compilers add, each once), then publishes it with the configuration in one snapshot
   * swap: no query sees new zone data with old services or the reverse. When any part fails,
   * nothing is published, the old state keeps serving and the failure is thrown. Listen addresses,
   * port and threads are bound at start and only change with a restart.
   */
  public synchronized Snapshot apply(SluiceConfig config, String name) throws ConfigException {
    Snapshot next;
    try {
      next = publisher.publish(store, config, name);
    } catch (ConfigException e) {
      metrics.configReload(false);
      throw e;
    }
    metrics.configReload(true);
    return next;
  }

  /**
   * Like {@link #apply(SluiceConfig, String)}, running {@code beforeSwap} once everything is built
   * and before it is published (the configuration history records the version there); when it
   * throws, nothing is published.
   */
  public synchronized Snapshot apply(
      SluiceConfig config, String name, ConfigPublisher.BeforeSwap beforeSwap)
      throws ConfigException, IOException {
    Snapshot next;
    try {
      next = publisher.publish(store, config, name, beforeSwap);
    } catch (ConfigException | IOException e) {
      metrics.configReload(false);
      throw e;
    }
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
    if (notifier != null) {
      notifier.close();
    }
    server.close();
  }
}
