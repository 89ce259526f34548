package io.sluice.server.app;

import io.netty.channel.Channel;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.DnsConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.dnssec.AnswerSigning;
import io.sluice.dns.https.HttpsServer;
import io.sluice.dns.https.HttpsSettings;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ResponderSettings;
import io.sluice.dns.response.ResponderWarmUp;
import io.sluice.dns.response.ServedZones;
import io.sluice.dns.server.DnsServer;
import io.sluice.dns.server.InheritedSockets;
import io.sluice.dns.transfer.Notifier;
import io.sluice.dns.zone.ZoneCompiler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Sluice node: the snapshot store, the planner, the responder and the DNS listeners,
 * wired together. The planner is passed in as a factory over the store, so the policy chain, probes
 * and admin API plug in here without the DNS packages knowing them. Configurations reach the node
 * through its {@link ConfigPublisher}: built whole off the query path, then published in one swap.
 */
public final class SluiceNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SluiceNode.class);

  /** The warm-up stops after this long whatever its count: a slow machine still starts soon. */
  private static final Duration WARM_UP_BUDGET = Duration.ofSeconds(2);

  private final SnapshotStore store;
  private final ConfigPublisher publisher;
  private final Responder responder;
  private final DnsServer server;
  // The DoH and HTTPDNS listener; null when dns.https is off.
  private final HttpsServer https;
  private final GslbMetrics metrics;
  private Notifier notifier;
  // The configuration as applied (the file's or a version's); what is served is it with the
  // overlay (the pools' dynamic members). Guarded by this.
  private SluiceConfig base;
  private UnaryOperator<SluiceConfig> overlay = UnaryOperator.identity();

  private SluiceNode(
      SnapshotStore store,
      ConfigPublisher publisher,
      Responder responder,
      DnsServer server,
      HttpsServer https,
      GslbMetrics metrics) {
    this.store = store;
    this.publisher = publisher;
    this.responder = responder;
    this.server = server;
    this.https = https;
    this.metrics = metrics;
    this.base = store.current().config();
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
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(), HttpsSettings.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, name));
    return start(
        store,
        publisher,
        null,
        null,
        planners.apply(store),
        metrics,
        ticker,
        InheritedSockets.NONE);
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
    ConfigPublisher publisher =
        new ConfigPublisher(List.of(ServedZones.compiler(), HttpsSettings.compiler()));
    ServedZones zones =
        ServedZones.build(ZoneCompiler.compile(config, name), ResponderSettings.of(config, name));
    HttpsSettings https = HttpsSettings.build(config, name);
    return start(
        store, publisher, zones, https, planner, metrics, Ticker.SYSTEM, InheritedSockets.NONE);
  }

  /**
   * Binds the DNS listeners for a store whose current snapshot was built by {@code publisher}
   * (which must include {@link ServedZones#compiler()}, and {@link HttpsSettings#compiler()} when
   * {@code dns.https} is on); reloads go through the same publisher.
   */
  public static SluiceNode start(
      SnapshotStore store, ConfigPublisher publisher, AnswerPlanner planner, GslbMetrics metrics)
      throws InterruptedException {
    return start(store, publisher, planner, metrics, InheritedSockets.NONE);
  }

  /**
   * As {@link #start(SnapshotStore, ConfigPublisher, AnswerPlanner, GslbMetrics)}, reading the
   * sockets of {@code inherited} that match the configured listeners instead of binding new ones.
   */
  public static SluiceNode start(
      SnapshotStore store,
      ConfigPublisher publisher,
      AnswerPlanner planner,
      GslbMetrics metrics,
      InheritedSockets inherited)
      throws InterruptedException {
    if (store.current().artifacts().get(ServedZones.class) == null) {
      throw new IllegalArgumentException("the store's snapshot was not built with the zones");
    }
    // No fallback: every snapshot carries its zones, and the first ones must not stay reachable.
    return start(store, publisher, null, null, planner, metrics, Ticker.SYSTEM, inherited);
  }

  private static SluiceNode start(
      SnapshotStore store,
      ConfigPublisher publisher,
      ServedZones zones,
      HttpsSettings httpsFallback,
      AnswerPlanner planner,
      GslbMetrics metrics,
      Ticker ticker,
      InheritedSockets inherited)
      throws InterruptedException {
    Responder responder = new Responder(store, zones, planner, metrics, ticker);
    // Signed zones: every GSLB answer a snapshot can give is signed before it is published.
    AnswerSigning.install(store, planner);
    DnsConfig dns = store.current().config().dns();
    warmUp(store.current(), zones, planner, metrics, ticker, dns.warmupQueries());
    DnsServer server = DnsServer.start(dns, responder, store, metrics, inherited);
    HttpsServer https = null;
    if (dns.https().enabled()) {
      // Each connection and request reads the settings (TLS context, HTTPDNS limits and tokens)
      // of the snapshot being served, so a reload applies them without a restart.
      Supplier<HttpsSettings> settings =
          () -> {
            HttpsSettings s = store.current().artifacts().get(HttpsSettings.class);
            return s != null ? s : httpsFallback;
          };
      if (settings.get() == null) {
        server.close();
        throw new IllegalArgumentException("the store's snapshot was not built with HTTPS");
      }
      int threads = dns.threads() == 0 ? Runtime.getRuntime().availableProcessors() : dns.threads();
      try {
        https =
            HttpsServer.start(
                dns.https(), threads, responder, settings, metrics, ticker, inherited);
      } catch (InterruptedException | RuntimeException e) {
        server.close();
        throw e;
      }
    }
    SluiceNode node = new SluiceNode(store, publisher, responder, server, https, metrics);
    node.notifier = Notifier.start(store, metrics);
    return node;
  }

  /**
   * Answers {@code queries} synthetic queries before any listener reads (see {@link
   * ResponderWarmUp}), through a responder over a store of its own, a detached planner and detached
   * metrics: no metric, rate limit bucket, decision sample or dnstap frame sees them. A planner
   * that cannot detach, or a failure, only costs the warm-up.
   */
  private static void warmUp(
      Snapshot current,
      ServedZones zones,
      AnswerPlanner planner,
      GslbMetrics metrics,
      Ticker ticker,
      int queries)
      throws InterruptedException {
    if (queries == 0) {
      return;
    }
    try {
      SnapshotStore own = new SnapshotStore(current);
      GslbMetrics detachedMetrics = metrics.detached();
      AnswerPlanner detached =
          planner == null
              ? null
              : planner.detached(own, detachedMetrics, ResponderWarmUp.services(current));
      if (detached == null) {
        log.debug("no warm-up: the planner cannot answer detached");
        return;
      }
      Responder scratch = new Responder(own, zones, detached, detachedMetrics, ticker);
      // Two halves, each on a thread of its own, with the same health published anew between
      // them: the planner derives fresh answer caches, and the second thread starts with empty
      // per-thread caches and meter cells. Those first fills happen again on every serving thread
      // and after every health change; the first half's ran before the code was profiled, and a
      // branch never taken while profiled is compiled as a trap, whose first use under load makes
      // the JIT throw the query path away. The threads' cells die with them.
      long start = System.nanoTime();
      ResponderWarmUp warm = ResponderWarmUp.of(scratch, current);
      long budget = WARM_UP_BUDGET.toNanos() - (System.nanoTime() - start);
      ResponderWarmUp.Result first = onOwnThread(() -> warm.run(queries / 2, budget));
      own.update(s -> s.withHealth(s.health().withAll(Map.of())));
      ResponderWarmUp.Result second =
          first == null
              ? null
              : onOwnThread(() -> warm.run(queries - queries / 2, budget - first.nanos()));
      if (detached instanceof AutoCloseable c) {
        c.close();
      }
      if (second == null) {
        log.warn("query path warm-up ended early; see the thread's error above");
        return;
      }
      log.info(
          "query path warmed up: {} synthetic queries ({} distinct) in {} ms",
          first.queries() + second.queries(),
          first.distinct(),
          (System.nanoTime() - start) / 1_000_000);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      log.warn("query path warm-up skipped: {}", e.toString());
    }
  }

  /** {@code work}'s result, run on a new thread; null when it threw (the thread logs it). */
  private static ResponderWarmUp.Result onOwnThread(Supplier<ResponderWarmUp.Result> work)
      throws InterruptedException {
    ResponderWarmUp.Result[] result = new ResponderWarmUp.Result[1];
    Thread t = new Thread(() -> result[0] = work.get(), "sluice-warm-up");
    t.start();
    t.join();
    return result[0];
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
      next = publisher.publish(store, overlay.apply(config), name);
      base = config;
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
      next = publisher.publish(store, overlay.apply(config), name, beforeSwap);
      base = config;
    } catch (ConfigException | IOException e) {
      metrics.configReload(false);
      throw e;
    }
    metrics.configReload(true);
    return next;
  }

  /**
   * Serves every applied configuration through {@code served} (the pools' dynamic members added),
   * from now on and at once.
   */
  public synchronized void overlay(UnaryOperator<SluiceConfig> served) throws ConfigException {
    overlay = served;
    republish();
  }

  /**
   * Builds and publishes the applied configuration again through the overlay, after the dynamic
   * members changed: the new members are answered and probed from this snapshot on, with no reload
   * of the file and no new configuration version.
   */
  public synchronized void republish() throws ConfigException {
    SluiceConfig served = overlay.apply(base);
    if (served != store.current().config()) {
      publisher.publish(store, served, "dynamic members");
    }
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

  /** The DoH and HTTPDNS port, or -1 when {@code dns.https} is off. */
  public int httpsPort() {
    return https == null ? -1 : https.port();
  }

  /** The DNS port (UDP and TCP). */
  public int port() {
    return server.port();
  }

  /**
   * The listening sockets of DNS and DoH, readied for and handed over to the node taking over
   * ({@link DnsServer#handOverSockets}).
   */
  public List<InheritedSockets.Socket> handOverSockets() {
    List<InheritedSockets.Socket> all = new ArrayList<>(server.handOverSockets());
    if (https != null) {
      all.addAll(https.listeningSockets());
    }
    return all;
  }

  /** Starts reading handed-over sockets, held until the self-check passed (a takeover). */
  public void startReading() throws InterruptedException {
    server.startReading();
    if (https != null) {
      https.startReading();
    }
  }

  /** Stops reading the listening sockets; open TCP and HTTPS connections are served on. */
  public void stopListening() {
    server.stopListening();
    if (https != null) {
      https.stopListening();
    }
  }

  /** Pauses the DNS TCP connections between two queries, to hand them over (DnsServer). */
  public List<Channel> pauseIdleConnections() throws InterruptedException {
    return server.pauseIdleConnections();
  }

  /** TCP and HTTPS connections still open (a draining node waits for them). */
  public int openConnections() {
    return server.openTcpConnections() + (https == null ? 0 : https.openConnections());
  }

  @Override
  public void close() {
    if (notifier != null) {
      notifier.close();
    }
    if (https != null) {
      https.close();
    }
    server.close();
  }
}
