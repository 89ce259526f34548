package io.sluice.probe;

import io.sluice.core.config.CheckConfig;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.HealthConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.probe.check.CheckFactory;
import io.sluice.probe.check.CheckResult;
import io.sluice.probe.check.CheckSource;
import io.sluice.probe.debounce.Layer;
import io.sluice.probe.debounce.Observation;
import io.sluice.probe.debounce.VantageTracker;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * Runs every configured check and canary of a configuration from this process, with the same
 * scheduling, jitter, in-flight cap and fast confirmation as a node, and hands each raw result to a
 * listener instead of deciding verdicts: the engine of a probe agent, whose results a node combines
 * with its own.
 */
public final class LocalProbes {

  /** Receives each finished check on the probe thread. */
  public interface Listener {
    /** {@code target} is {@code pool/endpoint} or the canary; {@code check} its kind. */
    void onResult(String target, String check, CheckResult result, long atMillis);
  }

  private final TaskScheduler ts;
  private final ProbeScheduler scheduler;
  private final Listener listener;
  private final Map<String, VantageTracker> trackers = new HashMap<>();
  private final Map<String, ProbeTarget> deciding = new HashMap<>();
  private final Map<String, HealthConfig> health = new HashMap<>();

  private LocalProbes(
      SluiceConfig config,
      TaskScheduler ts,
      CheckSource checks,
      GslbMetrics metrics,
      RandomGenerator random,
      Listener listener) {
    this.ts = ts;
    this.listener = listener;
    this.scheduler =
        new ProbeScheduler(ts, config.probes().maxInFlight(), metrics, random, this::onResult);
    config
        .pools()
        .forEach(
            (pool, p) -> {
              for (EndpointConfig e : p.endpoints()) {
                HealthConfig h = e.health() != null ? e.health() : p.health();
                if (h.unchecked()) {
                  continue;
                }
                String key = PoolConfig.endpointKey(pool, e);
                trackers.put(
                    key, new VantageTracker(h.downAfter(), h.upAfter(), h.fullLink() != null));
                health.put(key, h);
                ProbeTarget hb = null;
                ProbeTarget fl = null;
                if (h.heartbeat() != null) {
                  hb =
                      target(
                          key,
                          Layer.HEARTBEAT,
                          h,
                          h.heartbeat(),
                          e,
                          checks,
                          HealthConfig.HEARTBEAT_INTERVAL,
                          HealthConfig.HEARTBEAT_TIMEOUT);
                }
                if (h.fullLink() != null) {
                  fl =
                      target(
                          key,
                          Layer.FULL_LINK,
                          h,
                          h.fullLink(),
                          e,
                          checks,
                          HealthConfig.FULL_LINK_INTERVAL,
                          HealthConfig.FULL_LINK_TIMEOUT);
                }
                deciding.put(key, fl != null ? fl : hb);
              }
            });
    for (String c : config.probes().canaries()) {
      scheduler.add(
          new ProbeTarget(
              c,
              null,
              CheckFactory.withAttempts(
                  checks.canary(c), 3, CheckFactory.CANARY_TIMEOUT, ts.ticker()),
              HealthEngine.SWEEP_NANOS),
          true);
    }
  }

  /** Starts every check of {@code config} on {@code ts}; results go to {@code listener}. */
  public static LocalProbes start(
      SluiceConfig config,
      TaskScheduler ts,
      CheckSource checks,
      GslbMetrics metrics,
      RandomGenerator random,
      Listener listener) {
    LocalProbes[] out = new LocalProbes[1];
    CountDownLatch built = new CountDownLatch(1);
    ts.execute(
        () -> {
          out[0] = new LocalProbes(config, ts, checks, metrics, random, listener);
          built.countDown();
        });
    try {
      if (!built.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the probe thread did not start");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return out[0];
  }

  private ProbeTarget target(
      String key,
      Layer layer,
      HealthConfig h,
      CheckConfig c,
      EndpointConfig e,
      CheckSource checks,
      Duration interval,
      Duration timeout) {
    ProbeTarget t =
        new ProbeTarget(
            key,
            layer,
            CheckFactory.withAttempts(
                checks.create(c, e.address(), timeout),
                h.attempts(),
                c.timeoutOr(timeout),
                ts.ticker()),
            c.intervalOr(interval).toNanos());
    scheduler.add(t, layer == Layer.FULL_LINK || h.fullLink() == null);
    return t;
  }

  private void onResult(ProbeTarget t, CheckResult r) {
    long at = ts.ticker().currentTimeMillis();
    if (!t.canary()) {
      VantageTracker tracker = trackers.get(t.key());
      Observation o = new Observation("", t.kind(), r.ok(), r.rttMillis(), r.error(), at);
      if (tracker.record(t.layer(), o, ts.ticker().nanoTime())) {
        HealthConfig h = health.get(t.key());
        ProbeTarget d = deciding.get(t.key());
        long fastNanos = h.fastRecheck().toNanos();
        scheduler.recheck(d, t == d ? fastNanos : 0, fastNanos, h.downAfter());
      }
    }
    listener.onResult(t.key(), t.kind(), r, at);
  }
}
