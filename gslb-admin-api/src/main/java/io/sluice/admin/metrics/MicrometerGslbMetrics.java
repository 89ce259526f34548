package io.sluice.admin.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.DnsSocketStats;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.HttpsCloseReason;
import io.sluice.core.spi.RateLimitAction;
import io.sluice.core.spi.RateLimitKind;
import io.sluice.core.spi.TcpCloseReason;
import io.sluice.core.spi.TransferKind;
import io.sluice.core.spi.TransferOutcome;
import io.sluice.core.spi.WebhookStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.ToDoubleFunction;

/**
 * {@link GslbMetrics} bound to Micrometer. Meters are created on first use of a label tuple and
 * cached; the per-query DNS meters are plain per-thread cells indexed by bounded labels and summed
 * on scrape ({@link DnsQueryMeters}), so recording a query writes nothing another thread writes.
 * The series with a service label are {@link SeriesFamily} series, not Micrometer meters: at 10,000
 * services they are most of the scrape and of the meters' heap. Label values come from
 * configuration or small fixed sets (zones, qtypes, rcodes, services, pools), never from clients.
 */
public final class MicrometerGslbMetrics implements GslbMetrics {
  private static final Duration[] PROBE_BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(2),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private static final String DROPPED_HELP =
      "DNS queries or replies dropped unanswered under overload: by the kernel because a UDP"
          + " receive buffer was full, or by the server because its send queue was full";
  private static final String UDP_QUEUE_HELP =
      "Bytes waiting in the UDP queues: queries in the kernel, replies in the server";

  private final MeterRegistry registry;

  /** The policy events, the check kinds and the ramp kinds: fixed label sets. */
  private static final List<String> POLICY_EVENTS =
      List.of(
          "fail-open",
          "fail-closed",
          "drained-last-resort",
          "residency-last-resort",
          "last-decision",
          "planner-failed");

  private static final List<String> CHECK_KINDS = List.of("heartbeat", "fullLink", "canary");
  private static final List<String> RAMP_KINDS = List.of("weights", "move", "failover", "failback");

  /**
   * Probe agents name their vantage in each report: past this many distinct names, the probe path
   * gauge of a new name is labelled {@value #OTHER_VANTAGE}, so a token holder cannot add series
   * without bound.
   */
  static final int MAX_VANTAGES = 256;

  static final String OTHER_VANTAGE = "other";

  /** The service label of a rollback of every service. */
  private static final String ALL = "all";

  private final DnsQueryMeters dnsQueries;
  private final Counter[] tcpClosed;
  private final AtomicLong tcpOpen = new AtomicLong();
  private volatile DnsSocketStats dnsSocketStats;

  /** Rate limited responses by kind: all of them, then those slipped and those dropped. */
  private final Counter[] rrlLimited;

  private final Counter[] rrlSlipped;
  private final Counter[] rrlDropped;
  private final MeterCache<SeriesFamily.Counter> answers;

  private static final int ANSWER_CACHE_SLOTS = 64;

  /** Per thread, a direct-mapped cache of service answer meters; see {@link #serviceAnswer}. */
  private final ThreadLocal<AnswerMeters[]> answerCache =
      ThreadLocal.withInitial(() -> new AnswerMeters[ANSWER_CACHE_SLOTS]);

  private final MeterCache<RegionCounters> regionAnswers;
  private final MeterCache<Counter> probeChecks;
  private final MeterCache<Timer> probeDuration;
  private final Timer probeLag;
  private final MeterCache<AtomicLong> pathImpaired;
  private final Set<String> vantages = ConcurrentHashMap.newKeySet();
  private final MeterCache<Counter> verdictChanges;
  private final MeterCache<SeriesFamily.Counter> rampSteps;
  private final MeterCache<SeriesFamily.Gauge> rampPercent;
  private final MeterCache<AtomicLong> poolLoad;
  private final MeterCache<AtomicLong> poolLoadAge;
  private final MeterCache<SeriesFamily.Counter> policyEvents;
  private final MeterCache<SeriesFamily.Counter> rollbacks;
  private final MeterCache<DurationFamily.Timer> rollbackDuration;
  private final MeterCache<Counter> reloads;
  private final MeterCache<SeriesFamily.Counter> rampsStarted;
  private final AtomicLong lastReloadOk = new AtomicLong(1);
  private final MeterCache<Counter> transfers;
  private final MeterCache<Counter> notifies;
  private final MeterCache<Counter> httpsRequests;
  private final Counter[] httpsClosed;
  private final AtomicLong storeHealthy = new AtomicLong(1);
  // Whether the webhook outbox takes writes; healthy until an outbox reports otherwise.
  private volatile BooleanSupplier webhookOutboxHealthy = () -> true;

  /** Nearest and cross-region answer counts of one service, with their ratio gauges. */
  private record RegionCounters(SeriesFamily.Counter nearest, SeriesFamily.Counter cross) {
    double nearestRatio() {
      double n = nearest.count();
      double total = n + cross.count();
      return total == 0 ? Double.NaN : n / total;
    }

    double crossRatio() {
      double c = cross.count();
      double total = c + nearest.count();
      return total == 0 ? Double.NaN : c / total;
    }
  }

  /**
   * Meters registered in {@code registry} alone, the per-service families written nowhere: for
   * benchmarks of the recording path.
   */
  public MicrometerGslbMetrics(PrometheusMeterRegistry registry) {
    this(registry, new ArrayList<>());
  }

  /** A sink of this class over a registry of its own that no scrape reads. */
  @Override
  public GslbMetrics detached() {
    return new MicrometerGslbMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
  }

  /**
   * Meters registered in {@code registry}; the per-query DNS meters collect in its scrape, and the
   * per-service families are added to {@code families}, which the scrape writes after it.
   */
  MicrometerGslbMetrics(PrometheusMeterRegistry registry, List<SeriesFamily> families) {
    this.registry = registry;
    dnsQueries = new DnsQueryMeters(registry, registry.getPrometheusRegistry());
    TcpCloseReason[] reasons = TcpCloseReason.values();
    tcpClosed = new Counter[reasons.length];
    for (TcpCloseReason r : reasons) {
      tcpClosed[r.ordinal()] =
          Counter.builder("sluice.dns.tcp.closed")
              .description("TCP DNS connections closed by the server's limits, by reason")
              .tags("reason", r.label())
              .register(registry);
    }
    HttpsCloseReason[] httpsReasons = HttpsCloseReason.values();
    httpsClosed = new Counter[httpsReasons.length];
    for (HttpsCloseReason r : httpsReasons) {
      httpsClosed[r.ordinal()] =
          Counter.builder("sluice.https.connections.closed")
              .description("DoH/HTTPDNS connections closed by the listener's limits, by reason")
              .tags("reason", r.label())
              .register(registry);
    }
    rrlLimited =
        rrlCounters(
            registry, "limited", "UDP responses over their rate limit (also in log-only mode)");
    rrlSlipped =
        rrlCounters(registry, "slipped", "rate limited UDP responses sent truncated (TC=1)");
    rrlDropped = rrlCounters(registry, "dropped", "rate limited UDP responses not sent");
    Gauge.builder("sluice.dns.tcp.connections", tcpOpen, AtomicLong::get)
        .description("TCP DNS connections open")
        .register(registry);
    answers =
        counters(
            families,
            "sluice_policy_answers_total",
            "Service answers, by the pool they named",
            "service",
            "pool");
    SeriesFamily nearest =
        family(
            families,
            "sluice_policy_answers_nearest_total",
            SeriesFamily.Type.COUNTER,
            "Service answers naming a pool in the client's own region",
            "service");
    SeriesFamily cross =
        family(
            families,
            "sluice_policy_answers_cross_region_total",
            SeriesFamily.Type.COUNTER,
            "Service answers naming a pool outside the client's region",
            "service");
    SeriesFamily nearestRatio =
        family(
            families,
            "sluice_policy_nearest_ratio",
            SeriesFamily.Type.GAUGE,
            "Share of answers naming a pool in the client's region, since start",
            "service");
    SeriesFamily crossRatio =
        family(
            families,
            "sluice_policy_cross_region_ratio",
            SeriesFamily.Type.GAUGE,
            "Share of answers naming a pool outside the client's region, since start",
            "service");
    regionAnswers =
        new MeterCache<>(
            1,
            l -> {
              RegionCounters rc = new RegionCounters(nearest.counter(l), cross.counter(l));
              nearestRatio.computed(rc::nearestRatio, l);
              crossRatio.computed(rc::crossRatio, l);
              return rc;
            });
    probeChecks =
        new MeterCache<>(
            3,
            l ->
                Counter.builder("sluice.probe.checks")
                    .description("Health checks finished, by kind, result (ok, fail) and reason")
                    .tags("kind", l[0], "result", l[1], "reason", l[2])
                    .register(registry));
    probeDuration =
        new MeterCache<>(
            1,
            l ->
                Timer.builder("sluice.probe.duration")
                    .description("Health check latency, by kind")
                    .tags("kind", l[0])
                    .serviceLevelObjectives(PROBE_BUCKETS)
                    .register(registry));
    probeLag =
        Timer.builder("sluice.probe.schedule.lag")
            .description("How late scheduled health checks started")
            .register(registry);
    Gauge.builder("sluice.state.store.healthy", storeHealthy, AtomicLong::get)
        .description(
            "1 while the state directory takes writes, 0 after a failed journal/audit write")
        .register(registry);
    Gauge.builder(
            "sluice.webhook.outbox.healthy",
            this,
            m -> m.webhookOutboxHealthy.getAsBoolean() ? 1 : 0)
        .description(
            "1 while the webhook outbox takes writes, 0 after a failed write (events then wait in"
                + " memory and in the audit log)")
        .register(registry);
    pathImpaired =
        new MeterCache<>(
            1,
            l -> {
              AtomicLong value = new AtomicLong();
              Gauge.builder("sluice.probe.path.impaired", value, AtomicLong::get)
                  .description("1 while every canary of a vantage fails, else 0")
                  .tags("vantage", l[0])
                  .register(registry);
              return value;
            });
    verdictChanges =
        new MeterCache<>(
            3,
            l ->
                Counter.builder("sluice.health.verdict.changes")
                    .description("Endpoint verdict changes")
                    .tags("endpoint", l[0], "from", l[1], "to", l[2])
                    .register(registry));
    rampSteps =
        counters(families, "sluice_traffic_ramp_steps_total", "Ramp steps taken", "service");
    SeriesFamily percent =
        family(
            families,
            "sluice_traffic_ramp_percent",
            SeriesFamily.Type.GAUGE,
            "Share (percent) reached by the latest ramp step",
            "service");
    rampPercent = new MeterCache<>(1, percent::gauge);
    policyEvents =
        counters(
            families,
            "sluice_policy_events_total",
            "Answers the chain could not give normally (fail-open, fail-closed,"
                + " drained-last-resort, residency-last-resort, last-decision,"
                + " planner-failed)",
            "service",
            "event");
    rollbacks =
        counters(families, "sluice_traffic_rollbacks_total", "Rollbacks completed", "service");
    DurationFamily rollbackTimes =
        new DurationFamily(
            families,
            "sluice_traffic_rollback_duration_seconds",
            "Time from a rollback command to the snapshot that serves it",
            "service");
    rollbackDuration = new MeterCache<>(1, rollbackTimes::timer);
    poolLoad = doubleGauge(registry, "sluice.pool.load", "Last load reported for a pool", null);
    poolLoadAge =
        doubleGauge(
            registry,
            "sluice.pool.load.age",
            "Age of a pool's last load report; above load.staleAfter it is ignored",
            "seconds");
    reloads =
        new MeterCache<>(
            1,
            l ->
                Counter.builder("sluice.config.reloads")
                    .description("Configuration reloads, by result (ok, rejected)")
                    .tags("result", l[0])
                    .register(registry));
    reloads.get("ok");
    reloads.get("rejected");
    Gauge.builder("sluice.config.last.reload.successful", lastReloadOk, AtomicLong::get)
        .description("1 unless the last configuration reload was rejected")
        .register(registry);
    rampsStarted =
        counters(
            families,
            "sluice_traffic_ramps_started_total",
            "Ramps started, by kind (weights, move, failover, failback)",
            "service",
            "kind");
    transfers =
        new MeterCache<>(
            3,
            l ->
                Counter.builder("sluice.dns.transfers")
                    .description("Zone transfer requests, by zone, kind and outcome")
                    .tags("zone", l[0], "kind", l[1], "outcome", l[2])
                    .register(registry));
    notifies =
        new MeterCache<>(
            2,
            l ->
                Counter.builder("sluice.dns.notify")
                    .description("NOTIFY messages to secondaries, by zone and result")
                    .tags("zone", l[0], "result", l[1])
                    .register(registry));
    httpsRequests =
        new MeterCache<>(
            3,
            l ->
                Counter.builder("sluice.https.requests")
                    .description(
                        "Requests on the DoH/HTTPDNS listener, by endpoint, method and HTTP status")
                    .tags("endpoint", l[0], "method", l[1], "status", l[2])
                    .register(registry));
  }

  /**
   * Registers at zero every series of a label tuple {@code config} implies (its services, pools and
   * checked endpoints), so that a rate or increase over them sees the first event. Series of
   * services and endpoints a reload removed stay until restart.
   */
  void prepare(SluiceConfig config) {
    for (ZoneConfig z : config.zones()) {
      for (ServiceConfig svc : z.services()) {
        String name = svc.fqdn(z.origin());
        for (ServicePoolConfig sp : svc.pools()) {
          answers.get(name, sp.pool());
        }
        regionAnswers.get(name);
        for (String event : POLICY_EVENTS) {
          policyEvents.get(name, event);
        }
        rampSteps.get(name);
        rampPercent.get(name);
        rollbacks.get(name);
        rollbackDuration.get(name);
        for (String kind : RAMP_KINDS) {
          rampsStarted.get(name, kind);
        }
      }
    }
    rollbacks.get(ALL);
    rollbackDuration.get(ALL);
    for (String kind : CHECK_KINDS) {
      probeDuration.get(kind);
      probeChecks.get(kind, "ok", "ok");
    }
    pathImpaired.get(vantageLabel(config.localVantage()));
    for (Map.Entry<String, PoolConfig> p : config.pools().entrySet()) {
      for (EndpointConfig e : p.getValue().endpoints()) {
        boolean checked = !(e.health() != null ? e.health() : p.getValue().health()).unchecked();
        String key = PoolConfig.endpointKey(p.getKey(), e);
        for (Verdict from : Verdict.values()) {
          for (Verdict to : Verdict.values()) {
            // Verdicts change to UNKNOWN never, and only checked endpoints change at all.
            if (checked && from != to && to != Verdict.UNKNOWN) {
              verdictChanges.get(key, from.name(), to.name());
            }
          }
        }
      }
    }
  }

  /** A family Sluice writes itself, added to the scraped {@code families}. */
  private static SeriesFamily family(
      List<SeriesFamily> families,
      String name,
      SeriesFamily.Type type,
      String description,
      String... keys) {
    SeriesFamily f = new SeriesFamily(name, type, description, keys);
    families.add(f);
    return f;
  }

  /** A counter family keyed by {@code keys}, its series created on first use of a label tuple. */
  private static MeterCache<SeriesFamily.Counter> counters(
      List<SeriesFamily> families, String name, String description, String... keys) {
    SeriesFamily f = family(families, name, SeriesFamily.Type.COUNTER, description, keys);
    return new MeterCache<>(keys.length, f::counter);
  }

  @Override
  public void dnsQuery(String zone, int qtype, int rcode, boolean tcp, long nanos) {
    dnsQueries.record(zone, qtype, rcode, tcp, nanos, System.nanoTime());
  }

  @Override
  public void dnsQuery(
      String zone, int qtype, int rcode, boolean tcp, long nanos, long endNanoTime) {
    dnsQueries.record(zone, qtype, rcode, tcp, nanos, endNanoTime);
  }

  /** One counter per answer kind, registered at zero so dashboards see the series from start. */
  private static Counter[] rrlCounters(MeterRegistry registry, String what, String description) {
    RateLimitKind[] kinds = RateLimitKind.values();
    Counter[] counters = new Counter[kinds.length];
    for (RateLimitKind k : kinds) {
      counters[k.ordinal()] =
          Counter.builder("sluice.dns.rrl." + what)
              .description(description)
              .tags("kind", k.label())
              .register(registry);
    }
    return counters;
  }

  @Override
  public void dnsRateLimited(RateLimitKind kind, RateLimitAction action) {
    rrlLimited[kind.ordinal()].increment();
    switch (action) {
      case SLIPPED -> rrlSlipped[kind.ordinal()].increment();
      case DROPPED -> rrlDropped[kind.ordinal()].increment();
      case LOGGED -> {}
    }
  }

  @Override
  public void dnsSockets(DnsSocketStats stats) {
    // Micrometer holds a meter's source weakly: once nothing else refers to it, the counters
    // read 0 from then on. The sockets' statistics live as long as the process, so this holds them.
    dnsSocketStats = stats;
    droppedCounter(stats, "receive_buffer", DnsSocketStats::receiveBufferDrops);
    droppedCounter(stats, "send_queue", DnsSocketStats::sendQueueDrops);
    udpQueueGauge(stats, "receive", DnsSocketStats::receiveQueueBytes);
    udpQueueGauge(stats, "send", DnsSocketStats::sendQueueBytes);
  }

  private void droppedCounter(
      DnsSocketStats stats, String reason, ToDoubleFunction<DnsSocketStats> count) {
    FunctionCounter.builder("sluice.dns.dropped", stats, count)
        .description(DROPPED_HELP)
        .tags("reason", reason)
        .register(registry);
  }

  private void udpQueueGauge(
      DnsSocketStats stats, String direction, ToDoubleFunction<DnsSocketStats> bytes) {
    Gauge.builder("sluice.dns.udp.queue.bytes", stats, bytes)
        .description(UDP_QUEUE_HELP)
        .tags("direction", direction)
        .register(registry);
  }

  @Override
  public void dnsTcpClosed(TcpCloseReason reason) {
    tcpClosed[reason.ordinal()].increment();
  }

  @Override
  public void httpsClosed(HttpsCloseReason reason) {
    httpsClosed[reason.ordinal()].increment();
  }

  @Override
  public void dnsTcpOpen(int open) {
    tcpOpen.set(open);
  }

  @Override
  public void serviceAnswer(String service, String pool, boolean nearest) {
    // Every service answer of the DNS path comes here: the calling thread's small cache of the
    // last meters per (service, pool) saves the three shared map reads of a look-up.
    AnswerMeters[] cache = answerCache.get();
    int slot = (service.hashCode() * 31 + pool.hashCode()) & (ANSWER_CACHE_SLOTS - 1);
    AnswerMeters m = cache[slot];
    if (m == null || !m.service.equals(service) || !m.poolName.equals(pool)) {
      RegionCounters region = regionAnswers.get(service);
      m =
          new AnswerMeters(
              service,
              pool,
              answers.get(service, pool).cell(),
              region.nearest.cell(),
              region.cross.cell());
      cache[slot] = m;
    }
    m.answers.increment();
    (nearest ? m.nearest : m.cross).increment();
  }

  /**
   * The calling thread's own cells of the meters one service answer naming one pool counts in: a
   * thread evicting and taking back an entry of its cache gets the same cells again.
   */
  private record AnswerMeters(
      String service,
      String poolName,
      SeriesFamily.Cell answers,
      SeriesFamily.Cell nearest,
      SeriesFamily.Cell cross) {}

  @Override
  public void probeCheck(String kind, boolean ok, String reason, long nanos) {
    // A passing check carries no reason; a failing one without a reason is still a failure.
    String why = reason != null ? reason : ok ? "ok" : "unknown";
    probeChecks.get(kind, ok ? "ok" : "fail", why).increment();
    probeDuration.get(kind).record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void probeScheduleLag(long nanos) {
    probeLag.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void probePathImpaired(String vantage, boolean impaired) {
    pathImpaired.get(vantageLabel(vantage)).set(impaired ? 1 : 0);
  }

  private String vantageLabel(String vantage) {
    if (vantages.contains(vantage)
        || (vantages.size() < MAX_VANTAGES && vantages.add(vantage))
        || vantages.contains(vantage)) {
      return vantage;
    }
    return OTHER_VANTAGE;
  }

  @Override
  public void verdictChange(String endpoint, String from, String to) {
    verdictChanges.get(endpoint, from, to).increment();
  }

  @Override
  public void rampStarted(String service, String kind) {
    rampsStarted.get(service, kind).increment();
  }

  @Override
  public void rampStep(String service, double percent) {
    rampSteps.get(service).increment();
    rampPercent.get(service).set(percent);
  }

  @Override
  public void policyEvent(String service, String event) {
    // Counted on the DNS path (an event of an answer): each thread in a cell of its own, as for
    // service answers, so that event loops answering the same service share no written line.
    policyEvents.get(service, event).cell().increment();
  }

  @Override
  public void rollback(String service, long nanos) {
    // The state writer names a rollback of every service "*".
    String s = service == null || "*".equals(service) ? ALL : service;
    rollbacks.get(s).increment();
    rollbackDuration.get(s).record(nanos);
  }

  /** A gauge per pool holding a double, as the bits of an AtomicLong. */
  private static MeterCache<AtomicLong> doubleGauge(
      MeterRegistry registry, String name, String description, String unit) {
    return new MeterCache<>(
        1,
        l -> {
          AtomicLong bits = new AtomicLong(Double.doubleToLongBits(Double.NaN));
          Gauge.builder(name, bits, b -> Double.longBitsToDouble(b.get()))
              .description(description)
              .baseUnit(unit)
              .tags("pool", l[0])
              .register(registry);
          return bits;
        });
  }

  @Override
  public void poolLoad(String pool, double load, double ageSeconds) {
    poolLoad.get(pool).set(Double.doubleToLongBits(load));
    poolLoadAge.get(pool).set(Double.doubleToLongBits(ageSeconds));
  }

  @Override
  public void storeHealthy(boolean healthy) {
    storeHealthy.set(healthy ? 1 : 0);
  }

  @Override
  public void webhookOutbox(BooleanSupplier healthy) {
    webhookOutboxHealthy = healthy;
  }

  @Override
  public void webhook(String name, WebhookStats stats) {
    // Webhook names come from the configuration, so the label set stays bounded.
    FunctionCounter.builder("sluice.webhook.delivered", stats, WebhookStats::delivered)
        .description("Events a webhook acknowledged with a 2xx status")
        .tags("webhook", name)
        .register(registry);
    FunctionCounter.builder("sluice.webhook.failures", stats, WebhookStats::failures)
        .description("Webhook delivery attempts that failed (error status, timeout, no connection)")
        .tags("webhook", name)
        .register(registry);
    FunctionCounter.builder("sluice.webhook.dropped", stats, WebhookStats::dropped)
        .description("Events dropped undelivered because the webhook outbox was full")
        .tags("webhook", name)
        .register(registry);
    Gauge.builder("sluice.webhook.pending", stats, WebhookStats::pending)
        .description("Events waiting in the outbox for a webhook")
        .tags("webhook", name)
        .register(registry);
    Gauge.builder(
            "sluice.webhook.oldest.pending.seconds", stats, WebhookStats::oldestPendingSeconds)
        .description("Age of the oldest event waiting for a webhook (0: none)")
        .tags("webhook", name)
        .register(registry);
  }

  @Override
  public void configReload(boolean ok) {
    reloads.get(ok ? "ok" : "rejected").increment();
    lastReloadOk.set(ok ? 1 : 0);
  }

  @Override
  public void zoneTransfer(String zone, TransferKind kind, TransferOutcome outcome) {
    transfers.get(zone, kind.label(), outcome.label()).increment();
  }

  @Override
  public void notifySent(String zone, boolean ok) {
    notifies.get(zone, ok ? "answered" : "failed").increment();
  }

  @Override
  public void httpsRequest(String endpoint, String method, int status) {
    // The listener only sends a handful of statuses, so the label set stays small.
    httpsRequests.get(endpoint, method, Integer.toString(status)).increment();
  }
}
