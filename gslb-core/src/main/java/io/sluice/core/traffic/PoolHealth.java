package io.sluice.core.traffic;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
import java.util.HashMap;
import java.util.Map;

/**
 * A pool's state from its endpoints' verdicts: failed (every endpoint down, or fewer usable than
 * the service's {@code failoverBelow} percentage) or recovered (none down, one up).
 */
final class PoolHealth {
  private PoolHealth() {}

  static boolean down(
      SluiceConfig config,
      TrafficConfig traffic,
      HealthView health,
      String pool,
      Map<String, Object> evidence) {
    return down(config, traffic, health, pool, evidence, usable(config, health, pool));
  }

  /** Like {@link #down(SluiceConfig, TrafficConfig, HealthView, String, Map)}, from counts. */
  static boolean down(
      SluiceConfig config,
      TrafficConfig traffic,
      Counts counts,
      String pool,
      Map<String, Object> evidence) {
    return down(config, traffic, counts.health, pool, evidence, counts.usable(pool));
  }

  private static boolean down(
      SluiceConfig config,
      TrafficConfig traffic,
      HealthView health,
      String pool,
      Map<String, Object> evidence,
      int usable) {
    PoolConfig pc = config.pools().get(pool);
    if (pc == null || pc.endpoints().isEmpty()) {
      return false;
    }
    if (!traffic.poolFailed(usable, pc.endpoints().size())) {
      return false;
    }
    for (EndpointConfig e : pc.endpoints()) {
      String key = PoolConfig.endpointKey(pool, e);
      EndpointHealth h = health.get(key);
      evidence.put(key, h.verdict() + " since " + h.sinceMillis() + ": " + h.reason());
    }
    return true;
  }

  static boolean recovered(
      SluiceConfig config, HealthView health, String pool, Map<String, Object> evidence) {
    PoolConfig pc = config.pools().get(pool);
    if (pc == null) {
      return false;
    }
    boolean anyUp = false;
    for (EndpointConfig e : pc.endpoints()) {
      String key = PoolConfig.endpointKey(pool, e);
      EndpointHealth h = health.get(key);
      if (h.verdict() == Verdict.DOWN) {
        return false;
      }
      anyUp |= h.verdict() == Verdict.UP;
      evidence.put(key, h.verdict() + " since " + h.sinceMillis());
    }
    return anyUp;
  }

  /** How many endpoints of {@code pool} are not down (0 for a pool not configured). */
  private static int usable(SluiceConfig config, HealthView health, String pool) {
    PoolConfig pc = config.pools().get(pool);
    if (pc == null) {
      return 0;
    }
    int usable = 0;
    for (EndpointConfig e : pc.endpoints()) {
      if (health.get(PoolConfig.endpointKey(pool, e)).verdict() != Verdict.DOWN) {
        usable++;
      }
    }
    return usable;
  }

  /**
   * The endpoints not down per pool in one health view and configuration, counted once for every
   * service that uses the pool: the controller asks each second for every service, and ten thousand
   * services share a few hundred pools.
   */
  static final class Counts {
    private final SluiceConfig config;
    private final HealthView health;
    private final Map<String, Integer> usable = new HashMap<>();

    private Counts(SluiceConfig config, HealthView health) {
      this.config = config;
      this.health = health;
      for (String pool : config.pools().keySet()) {
        usable.put(pool, PoolHealth.usable(config, health, pool));
      }
    }

    /** {@code last} when it counted this view of this configuration, else a new count. */
    static Counts of(Counts last, SluiceConfig config, HealthView health) {
      return last != null && last.config == config && last.health == health
          ? last
          : new Counts(config, health);
    }

    int usable(String pool) {
      return usable.getOrDefault(pool, 0);
    }
  }
}
