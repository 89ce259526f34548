package io.sluice.core.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.audit.FileAuditLog;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.NotificationsConfig;
import io.sluice.core.config.NotificationsConfig.WebhookConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.EventTap;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Leadership;
import io.sluice.core.spi.Ticker;
import io.sluice.core.spi.WebhookStats;
import io.sluice.core.store.DiskWrites;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends every audited change to the configured webhooks, from the durable {@link Outbox}: each
 * event is in the outbox before the change it reports is acknowledged, is retried with capped
 * exponential backoff and jitter until its receiver answers 2xx, and events of one service reach
 * each webhook in order, one at a time, while other services (and other webhooks) go on. Every
 * attempt carries the event's id as its idempotency key and an HMAC-SHA256 signature over the time
 * and the body.
 *
 * <p>On a cluster, every node keeps the shared-state events but only the leader sends them; the
 * cluster's {@link SharedCursors} say how far each webhook got, so a new leader resumes there.
 * Events only one node records (its verdicts, its reloads) are kept and sent by that node if it led
 * when it recorded them (the others' copies of the same observation are not sent).
 *
 * <p>Delivery runs on one thread ({@code sluice-webhooks}); requests are asynchronous, so a slow
 * receiver holds only its own lanes. Retry times follow the injected {@link Ticker}.
 */
public final class Webhooks implements Closeable {
  private static final System.Logger LOG = System.getLogger(Webhooks.class.getName());
  private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  private static final long LOOP_MILLIS = 20;
  // With no receiver configured the thread waits for a configuration that names one (which wakes
  // it) instead of waking every LOOP_MILLIS; this is only its safety net.
  private static final long IDLE_NANOS = 60_000_000_000L;
  private static final long SHARED_REFRESH_MILLIS = 2000;
  // Events missing from the outbox are read again from this many of the newest audit events.
  private static final int RECOVER_LIMIT = 1000;

  private final Outbox outbox;
  private FileAuditLog audit;
  private final String node;
  // The first part of every event id (see WebhookEvent).
  private String source;
  private final Ticker ticker;
  private final Leadership leadership;
  private final SharedCursors shared;
  private final GslbMetrics metrics;
  private final Random random;
  private final ObjectMapper json = ConfigLoader.jsonMapper();
  private final HttpClient http;
  private final Map<String, Stats> stats = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Runnable> results = new ConcurrentLinkedQueue<>();
  // Per webhook and lane: the attempt in flight or waiting to be retried (dispatcher thread only).
  private final Map<String, Lane> lanes = new HashMap<>();
  private volatile Map<String, Sink> sinks = Map.of();
  private volatile NotificationsConfig settings = NotificationsConfig.defaults();
  private final Thread thread;
  private volatile boolean closed;
  private long sharedReadAt = Long.MIN_VALUE;
  // Whether this node led at the last step (dispatcher thread only).
  private boolean led;
  // The outbox's generation at the last scan, and the earliest retry then scheduled.
  private long seenGeneration = -1;
  private long nextRetryMillis = Long.MAX_VALUE;

  /** One configured webhook with its secrets read. */
  private record Sink(WebhookConfig config, byte[] secret, String routingKey) {}

  /** The delivery state of one lane of one webhook. */
  private static final class Lane {
    long eventSeq;
    int attempts;
    long nextAtMillis;
    boolean inFlight;
    String lastError;
  }

  /** Counters per webhook, kept across reloads so the meters keep reading the same object. */
  private final class Stats implements WebhookStats {
    final String name;
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong failures = new AtomicLong();

    Stats(String name) {
      this.name = name;
    }

    @Override
    public long delivered() {
      return delivered.get();
    }

    @Override
    public long failures() {
      return failures.get();
    }

    @Override
    public long dropped() {
      return outbox.dropped(name);
    }

    @Override
    public long pending() {
      return outbox.backlog(name)[0];
    }

    @Override
    public double oldestPendingSeconds() {
      long oldest = outbox.backlog(name)[1];
      return oldest == 0 ? 0 : Math.max(0, ticker.currentTimeMillis() - oldest) / 1000.0;
    }
  }

  private Webhooks(
      Outbox outbox,
      String node,
      Ticker ticker,
      Leadership leadership,
      SharedCursors shared,
      GslbMetrics metrics,
      Random random) {
    this.outbox = outbox;
    this.node = node;
    this.ticker = ticker;
    this.leadership = leadership;
    this.shared = shared;
    this.metrics = metrics;
    this.random = random;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    this.thread = new Thread(this::run, "sluice-webhooks");
    this.thread.setDaemon(true);
  }

  /**
   * What a node's webhooks are built from; {@code cluster} is the cluster's etcd key prefix, null
   * on a single node.
   */
  public record Setup(
      Path stateDir,
      FileAuditLog audit,
      String node,
      String cluster,
      Ticker ticker,
      Leadership leadership,
      SharedCursors shared,
      GslbMetrics metrics,
      Random random,
      DiskWrites writes) {}

  /**
   * Opens the outbox in {@code setup.stateDir()/webhooks}, reads again from the audit log what
   * reached it but not the outbox (a crash between the two writes, a full disk), starts hearing the
   * audit log, configures the webhooks of {@code config} and starts sending.
   */
  public static Webhooks start(Setup setup, SluiceConfig config) {
    return start(setup, config.notifications(), config.baseDir());
  }

  /**
   * Like {@link #start(Setup, SluiceConfig)} for the section {@code n}, its relative paths resolved
   * against {@code baseDir}.
   */
  public static Webhooks start(Setup setup, NotificationsConfig n, Path baseDir) {
    Outbox outbox =
        Outbox.open(
            setup.stateDir().resolve("webhooks"),
            setup.writes(),
            ConfigLoader.jsonMapper(),
            n.outboxLimit(),
            setup.audit().lastSeq());
    Webhooks w =
        new Webhooks(
            outbox,
            setup.node(),
            setup.ticker(),
            setup.leadership(),
            setup.shared(),
            setup.metrics(),
            setup.random());
    w.source =
        setup.cluster() == null
            ? outbox.source()
            : setup.cluster().replaceAll("^/+", "").replace('/', '-');
    w.configure(n, baseDir);
    setup.metrics().webhookOutbox(() -> outbox.problem() == null);
    w.audit = setup.audit();
    setup.audit().tap(w::heard, () -> w.recover(setup.audit()));
    w.thread.start();
    return w;
  }

  /** Events the audit log holds beyond what the outbox heard, in order. */
  private void recover(FileAuditLog audit) {
    long taken = outbox.recoverAfter();
    if (audit.lastSeq() <= taken) {
      return;
    }
    List<AuditEvent> newest = audit.query(new AuditQuery(null, null, null, null, 0, RECOVER_LIMIT));
    List<AuditEvent> missed = new ArrayList<>();
    for (AuditEvent e : newest) {
      if (e.seq() > taken) {
        missed.add(0, e);
      }
    }
    if (!missed.isEmpty()) {
      LOG.log(
          System.Logger.Level.INFO,
          "{0} audit event(s) after {1} were not in the webhook outbox; read again from the audit log",
          missed.size(),
          taken);
    }
    for (AuditEvent e : missed) {
      heard(e, List.of());
    }
  }

  /** The audit log's listener: keeps the event if a webhook wants it and this node sends it. */
  private void heard(AuditEvent a, List<SwitchRecord> switches) {
    WebhookEvent e = WebhookEvent.of(a, switches, source, node);
    boolean mine = e.cluster() || leadership.leads();
    for (String sink : outbox.add(e, mine)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "webhook {0} lost event {1} to the outbox bound",
          sink,
          e.id());
    }
  }

  /**
   * Applies the {@code notifications:} section of a (re)loaded configuration: secrets are read
   * again, webhooks added start with the next event, webhooks removed are forgotten. A secret that
   * cannot be read keeps that webhook's previous one (and is logged).
   */
  public void configure(SluiceConfig config) {
    configure(config.notifications(), config.baseDir());
  }

  /**
   * Like {@link #configure(SluiceConfig)}: section {@code n}, paths relative to {@code baseDir}.
   */
  public void configure(NotificationsConfig n, Path baseDir) {
    Map<String, Sink> next = new LinkedHashMap<>();
    Map<String, WebhookConfig> configs = new LinkedHashMap<>();
    for (WebhookConfig w : n.webhooks()) {
      try {
        byte[] secret = w.secretFile() == null ? null : read(baseDir, w.secretFile());
        String key =
            w.routingKeyFile() == null
                ? null
                : new String(read(baseDir, w.routingKeyFile()), StandardCharsets.UTF_8);
        next.put(w.name(), new Sink(w, secret, key));
      } catch (IOException e) {
        Sink before = sinks.get(w.name());
        LOG.log(
            System.Logger.Level.ERROR,
            "webhook "
                + w.name()
                + ": "
                + e.getMessage()
                + (before == null ? "; it is not sent to" : "; it keeps its previous secret"));
        if (before == null) {
          continue;
        }
        next.put(w.name(), new Sink(w, before.secret(), before.routingKey()));
      }
      configs.put(w.name(), w);
    }
    settings = n;
    sinks = Map.copyOf(next);
    outbox.sinks(configs);
    if (thread != null) {
      LockSupport.unpark(thread);
    }
    for (String name : configs.keySet()) {
      metrics.webhook(name, stats.computeIfAbsent(name, Stats::new));
    }
  }

  private static byte[] read(Path baseDir, String file) throws IOException {
    Path p = baseDir.resolve(file).normalize();
    byte[] b = Files.readAllBytes(p);
    String trimmed = new String(b, StandardCharsets.UTF_8).strip();
    if (trimmed.isEmpty()) {
      throw new IOException(p + " is empty");
    }
    return trimmed.getBytes(StandardCharsets.UTF_8);
  }

  private void run() {
    while (!closed) {
      try {
        boolean due = false;
        for (Runnable r; (r = results.poll()) != null; ) {
          r.run();
          due = true;
        }
        boolean leads = leadership.leads();
        if (leads && !led) {
          // Just took over: read how far the old leader got before sending anything.
          sharedReadAt = Long.MIN_VALUE;
        }
        due |= leads != led;
        led = leads;
        refreshShared();
        // The outbox is scanned only when something changed or a retry is due, so a long backlog
        // waiting for a dead receiver costs nothing between attempts.
        long generation = outbox.generation();
        if (due || generation != seenGeneration || ticker.currentTimeMillis() >= nextRetryMillis) {
          seenGeneration = generation;
          dispatch(leads);
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "webhook delivery step failed", e);
      }
      if (sinks.isEmpty() && results.isEmpty()) {
        // Fifty wake-ups a second cost an idle server 0.4 % of a core for nothing to send.
        LockSupport.parkNanos(this, IDLE_NANOS);
        if (Thread.interrupted()) {
          return; // only close() interrupts this thread
        }
        continue;
      }
      try {
        Thread.sleep(LOOP_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void refreshShared() {
    if (shared == SharedCursors.NONE) {
      return;
    }
    long now = System.nanoTime() / 1_000_000;
    if (sharedReadAt != Long.MIN_VALUE && now - sharedReadAt < SHARED_REFRESH_MILLIS) {
      return;
    }
    sharedReadAt = now;
    try {
      outbox.shared(shared.read());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "webhook cursors of the cluster not read: {0}", e);
    }
  }

  private void dispatch(boolean leads) {
    long now = ticker.currentTimeMillis();
    nextRetryMillis = Long.MAX_VALUE;
    for (Sink sink : sinks.values()) {
      String name = sink.config().name();
      for (WebhookEvent e : outbox.heads(name)) {
        if (e.cluster() && !leads) {
          continue; // the leader sends the cluster's events
        }
        Lane lane = lanes.computeIfAbsent(name + "\n" + e.lane(), k -> new Lane());
        if (lane.inFlight) {
          continue;
        }
        if (lane.eventSeq != e.seq()) {
          lane.eventSeq = e.seq();
          lane.attempts = 0;
          lane.nextAtMillis = now;
        }
        if (now >= lane.nextAtMillis) {
          send(sink, e, lane);
        } else {
          nextRetryMillis = Math.min(nextRetryMillis, lane.nextAtMillis);
        }
      }
    }
  }

  private void send(Sink sink, WebhookEvent e, Lane lane) {
    WebhookConfig w = sink.config();
    byte[] body;
    try {
      body = WebhookBodies.body(json, e, w.format(), sink.routingKey());
    } catch (IOException x) {
      LOG.log(System.Logger.Level.ERROR, "webhook event " + e.id() + " cannot be encoded", x);
      return;
    }
    HttpRequest.Builder rq =
        HttpRequest.newBuilder(URI.create(w.url()))
            .timeout(w.timeout())
            .header("Content-Type", "application/json")
            .header("User-Agent", "sluice-webhooks")
            .header("Sluice-Event-Id", e.id())
            .header("Idempotency-Key", e.id())
            .header("Sluice-Event-Type", e.type())
            .header("Sluice-Delivery-Attempt", Integer.toString(lane.attempts + 1))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (sink.secret() != null) {
      rq.header(
          "Sluice-Signature",
          WebhookBodies.signature(sink.secret(), ticker.currentTimeMillis() / 1000, body));
    }
    lane.inFlight = true;
    Stats s = stats.computeIfAbsent(w.name(), Stats::new);
    http.sendAsync(rq.build(), HttpResponse.BodyHandlers.discarding())
        .whenComplete(
            (response, error) ->
                results.add(
                    () -> {
                      lane.inFlight = false;
                      if (error == null && response.statusCode() / 100 == 2) {
                        delivered(w, e, lane, s);
                      } else {
                        failed(
                            w,
                            e,
                            lane,
                            s,
                            error == null
                                ? "HTTP " + response.statusCode()
                                : error.getClass().getSimpleName()
                                    + (error.getMessage() == null
                                        ? ""
                                        : ": " + error.getMessage()));
                      }
                    }));
  }

  private void delivered(WebhookConfig w, WebhookEvent e, Lane lane, Stats s) {
    s.delivered.incrementAndGet();
    outbox.delivered(w.name(), e);
    if (lane.lastError != null) {
      LOG.log(
          System.Logger.Level.INFO,
          "webhook {0} accepts events again ({1} delivered after {2} attempt(s))",
          w.name(),
          e.id(),
          lane.attempts + 1);
      lane.lastError = null;
    }
    lane.eventSeq = 0;
    if (e.cluster()) {
      try {
        shared.delivered(w.name(), e.lane(), e.revision());
      } catch (RuntimeException x) {
        // At least once: a new leader may send it again, under the same id.
        LOG.log(System.Logger.Level.WARNING, "webhook cursor of the cluster not written: {0}", x);
      }
    }
  }

  private void failed(WebhookConfig w, WebhookEvent e, Lane lane, Stats s, String why) {
    s.failures.incrementAndGet();
    lane.attempts++;
    long delay = backoff(lane.attempts);
    lane.nextAtMillis = ticker.currentTimeMillis() + delay;
    if (lane.lastError == null || lane.attempts % 10 == 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "webhook {0}: event {1} ({2}) not delivered, attempt {3}: {4}; next attempt in {5} ms",
          w.name(),
          e.id(),
          e.type(),
          lane.attempts,
          why,
          delay);
    }
    lane.lastError = why;
  }

  /**
   * The wait before attempt {@code attempts + 1}: 1 s doubled per failure, capped at {@code
   * notifications.maxBackoff}, of which a random half is kept ("equal jitter"), so receivers coming
   * back are not hit by every node and lane at once yet a retry never comes too soon.
   */
  long backoff(int attempts) {
    long cap = settings.maxBackoff().toMillis();
    long base = FIRST_RETRY.toMillis() << Math.min(attempts - 1, 30);
    long ceiling = Math.min(cap, base);
    long half = ceiling / 2;
    return half + (half == 0 ? 0 : (long) (random.nextDouble() * half));
  }

  /** Why the outbox cannot be written, or null when it can. */
  public String problem() {
    return outbox.problem();
  }

  @Override
  public void close() {
    if (audit != null) {
      audit.tap(EventTap.NONE);
    }
    closed = true;
    thread.interrupt();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    outbox.close();
  }
}
