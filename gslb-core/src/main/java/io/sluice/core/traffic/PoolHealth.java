package io.sluice.core.traffic;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
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
    PoolConfig pc = config.pools().get(pool);
    if (pc == null || pc.endpoints().isEmpty()) {
      return false;
    }
    int usable = 0;
    for (EndpointConfig e : pc.endpoints()) {
      if (health.get(PoolConfig.endpointKey(pool, e)).verdict() != Verdict.DOWN) {
        usable++;
      }
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
}
