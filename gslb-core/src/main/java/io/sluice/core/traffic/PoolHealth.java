package io.sluice.core.traffic;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
import java.util.Map;

/**
 * A pool's state from its endpoints' verdicts: down (all down) or recovered (none down, one up).
 */
final class PoolHealth {
  private PoolHealth() {}

  static boolean down(
      SluiceConfig config, HealthView health, String pool, Map<String, Object> evidence) {
    PoolConfig pc = config.pools().get(pool);
    if (pc == null || pc.endpoints().isEmpty()) {
      return false;
    }
    for (EndpointConfig e : pc.endpoints()) {
      EndpointHealth h = health.get(PoolConfig.endpointKey(pool, e));
      if (h.verdict() != Verdict.DOWN) {
        return false;
      }
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
